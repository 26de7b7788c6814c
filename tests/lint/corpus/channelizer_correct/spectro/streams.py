from numba import cuda


class StreamPair:

    def __init__(self):
        self.compute = cuda.stream()
        self.d2h = cuda.stream()

    def hand_off(self):
        """Make the d2h stream wait for everything queued on compute so far."""
        marker = cuda.event(timing=False)
        marker.record(stream=self.compute)
        marker.wait(stream=self.d2h)


def when_done(stream, fn, arg) -> None:
    """Invoke ``fn(arg)`` from the driver thread once ``stream`` reaches this point."""

    def _trampoline(_stream, _status, payload):
        fn(payload)

    stream.add_callback(_trampoline, arg)
