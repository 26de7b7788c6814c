from numba import cuda


class StreamBundle:
    def __init__(self) -> None:
        self.compute = cuda.stream()
        self.copy = cuda.stream()

    def __repr__(self) -> str:
        return f"StreamBundle(compute={self.compute}, copy={self.copy})"


def fence(stream):
    evt = cuda.event(timing=False)
    evt.record(stream=stream)
    return evt
