"""One worker thread per GPU. The thread makes its own non-blocking stream current with
``Stream.use()`` (CuPy's current stream is per thread) and allocates from its own memory
pool, so all of its kernels and copies are ordered on that one stream. Results come back
through pinned buffers; a chunk is handed to the sink once the event recorded after its
copy reports done, so the GPU can run ahead of the file writes by several chunks."""

import collections
import queue
import threading
from dataclasses import dataclass
from typing import Deque, Optional

import cupy
import cupyx
import numpy as np

from specpipe import dsp
from specpipe.sink import SpectrogramSink


@dataclass
class Chunk:
    chunk_id: int
    samples: np.ndarray


@dataclass
class _InFlight:
    chunk_id: int
    host: np.ndarray
    landed: cupy.cuda.Event


class GpuWorker:
    def __init__(self, device_id: int, sink: SpectrogramSink, n_fft: int = 1024, hop: int = 256,
                 max_in_flight: int = 4):
        self.device_id = device_id
        self.sink = sink
        self.n_fft, self.hop = n_fft, hop
        self.max_in_flight = max_in_flight
        self.inbox: "queue.Queue[Optional[Chunk]]" = queue.Queue(maxsize=2 * max_in_flight)
        self._in_flight: Deque[_InFlight] = collections.deque()
        self._thread = threading.Thread(target=self._run, name=f"spec-gpu{device_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, chunk: Optional[Chunk]) -> None:
        self.inbox.put(chunk)

    def join(self) -> None:
        self._thread.join()

    def _run(self) -> None:
        pool = cupy.cuda.MemoryPool()
        with cupy.cuda.Device(self.device_id), cupy.cuda.using_allocator(pool.malloc):
            self.stream = cupy.cuda.Stream(non_blocking=True)
            self.stream.use()
            window = dsp.hann(self.n_fft)
            while True:
                chunk = self.inbox.get()
                if chunk is None:
                    break
                self._process(chunk, window)
                self._emit_landed(wait=len(self._in_flight) >= self.max_in_flight)
            self._flush()

    def _process(self, chunk: Chunk, window: cupy.ndarray) -> None:
        d_samples = cupy.asarray(chunk.samples, dtype=cupy.float32)
        db = dsp.power_spectrogram(d_samples, window, self.hop)
        host = cupyx.empty_pinned(db.shape, dtype=np.float32)
        cupy.asnumpy(db, stream=self.stream, out=host, blocking=False)
        landed = self.stream.record()
        self._in_flight.append(_InFlight(chunk.chunk_id, host, landed))

    def _emit_landed(self, wait: bool) -> None:
        if wait:
            self._in_flight[0].landed.synchronize()
        while self._in_flight and self._in_flight[0].landed.done:
            item = self._in_flight.popleft()
            self.sink.write(item.chunk_id, item.host)

    def _flush(self) -> None:
        # end of input: wait for the copies still in flight, then hand over what is left
        self.stream.synchronize()
        while self._in_flight:
            item = self._in_flight.popleft()
            self.sink.write(item.chunk_id, item.host)
