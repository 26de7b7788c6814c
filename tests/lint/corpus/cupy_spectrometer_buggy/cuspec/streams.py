import cupy as cp


class StreamSet:
    """Upload, compute and download streams of the spectrometer."""

    def __init__(self):
        self.upload = cp.cuda.Stream(non_blocking=True)
        self.compute = cp.cuda.Stream(non_blocking=True)
        self.download = cp.cuda.Stream(non_blocking=True)

    def synchronize(self) -> None:
        for stream in (self.upload, self.compute, self.download):
            stream.synchronize()
