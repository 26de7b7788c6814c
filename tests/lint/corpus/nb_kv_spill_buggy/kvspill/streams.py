"""Stream bookkeeping: one compute stream, a small ring of copy streams."""
import itertools

from numba import cuda

from .config import NUM_COPY_STREAMS


class StreamRing:
    def __init__(self):
        self.compute = cuda.stream()
        self._copy = {f"copy{i}": cuda.stream() for i in range(NUM_COPY_STREAMS)}
        self._order = itertools.cycle(sorted(self._copy))

    def next_copy(self):
        return self._copy[next(self._order)]

    @staticmethod
    def handoff(producer, consumer):
        """Order `consumer` behind the work queued on `producer` so far."""
        evt = cuda.event(timing=False)
        evt.record(producer)
        evt.wait(consumer)
        return evt
