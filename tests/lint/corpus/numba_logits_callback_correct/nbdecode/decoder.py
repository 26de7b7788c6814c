import numpy as np
from numba import cuda

from .constants import MAX_BATCH, THREADS_PER_BLOCK, VOCAB_SIZE
from .kernels import row_softmax
from .postprocess import TokenSink


class StepDecoder:
    def __init__(self, vocab: int = VOCAB_SIZE, max_batch: int = MAX_BATCH) -> None:
        self.compute = cuda.stream()
        self.copy = cuda.stream()
        self.d_probs = cuda.device_array((max_batch, vocab), dtype=np.float32)
        self.h_probs = cuda.pinned_array((max_batch, vocab), dtype=np.float32)
        self.sink = TokenSink()
        self._copied = cuda.event(timing=False)

    def step(self, d_logits) -> None:
        batch = d_logits.shape[0]
        self._copied.wait(stream=self.compute)
        row_softmax[batch, THREADS_PER_BLOCK, self.compute](d_logits, self.d_probs[:batch])
        done = cuda.event(timing=False)
        done.record(stream=self.compute)
        done.wait(stream=self.copy)
        self.d_probs[:batch].copy_to_host(self.h_probs[:batch], stream=self.copy)
        self._copied.record(stream=self.copy)
        self.copy.add_callback(self.sink.on_probs_ready, self.h_probs[:batch])

    def next_tokens(self, timeout: float = 5.0) -> list[int]:
        return self.sink.out.get(timeout=timeout)

    def drain(self) -> list[list[int]]:
        self.compute.synchronize()
        self.copy.synchronize()
        batches = []
        while not self.sink.out.empty():
            batches.append(self.sink.out.get_nowait())
        return batches

    @property
    def max_batch(self) -> int:
        return self.h_probs.shape[0]
