import cupy


class StreamSet:
    """One compute stream plus dedicated streams for weight loads and cache stores."""

    def __init__(self, device_id: int = 0):
        with cupy.cuda.Device(device_id):
            self.compute = cupy.cuda.Stream(non_blocking=True)
            self.load = cupy.cuda.Stream(non_blocking=True)
            self.store = cupy.cuda.Stream(non_blocking=True)

    def sync(self) -> None:
        self.load.synchronize()
        self.compute.synchronize()
        self.store.synchronize()
