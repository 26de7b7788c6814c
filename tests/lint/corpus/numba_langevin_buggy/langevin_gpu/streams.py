from numba import cuda


class ChunkStreams:
    """One compute stream per ensemble chunk plus a shared readback stream."""

    def __init__(self, n_chunks: int):
        self.compute = [cuda.stream() for _ in range(n_chunks)]
        self.readback = cuda.stream()
        self._chunk_done = [cuda.event(timing=False) for _ in range(n_chunks)]
        self.energy_ready = [cuda.event(timing=False) for _ in range(n_chunks)]

    def readback_after(self, chunk: int):
        """Return the readback stream, ordered after the chunk's queued work."""
        self._chunk_done[chunk].record(stream=self.readback)
        self._chunk_done[chunk].wait(stream=self.readback)
        return self.readback

    def synchronize(self) -> None:
        for s in self.compute:
            s.synchronize()
        self.readback.synchronize()
