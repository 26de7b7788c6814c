"""Double-buffered input feeding: batch i+1 is uploaded on an upload stream while the
model runs batch i on torch's current stream."""
from typing import List

import numpy as np
import torch
from cuda.bindings import runtime as cudart

from .rt import PinnedStaging, check

_NO_TIMING = cudart.cudaEventDisableTiming


class InputPrefetcher:
    DEPTH = 2

    def __init__(self, model: torch.nn.Module, max_batch: int, seq_len: int):
        self.model = model
        self.shape = (max_batch, seq_len)
        nbytes = max_batch * seq_len * 8
        self.slots = [torch.empty(self.shape, dtype=torch.int64, device="cuda")
                      for _ in range(self.DEPTH)]
        self.staging = PinnedStaging(self.DEPTH, nbytes)
        self.upload = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self._uploaded = [check(cudart.cudaEventCreateWithFlags(_NO_TIMING)) for _ in range(self.DEPTH)]
        self._consumed = [check(cudart.cudaEventCreateWithFlags(_NO_TIMING)) for _ in range(self.DEPTH)]
        self._rows = [0] * self.DEPTH

    def stage(self, i: int, token_ids: np.ndarray) -> None:
        slot = i % self.DEPTH
        rows, cols = token_ids.shape
        # the staging slot is reused: its previous upload must have left it
        check(cudart.cudaEventSynchronize(self._uploaded[slot]))
        self.staging.view(slot, np.int64, self.shape)[:rows, :cols] = token_ids
        # and the device slot must no longer be read by the batch that used it last
        check(cudart.cudaStreamWaitEvent(self.upload, self._consumed[slot], 0))
        dst = self.slots[slot].data_ptr()
        check(cudart.cudaMemcpyAsync(dst, self.staging.ptr(slot), rows * self.shape[1] * 8,
                                     cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, self.upload))
        check(cudart.cudaEventRecord(self._uploaded[slot], self.upload))
        self._rows[slot] = rows

    @torch.inference_mode()
    def run(self, i: int) -> torch.Tensor:
        slot = i % self.DEPTH
        compute = torch.cuda.current_stream().cuda_stream
        check(cudart.cudaStreamWaitEvent(compute, self._uploaded[slot], 0))
        logits = self.model(self.slots[slot][: self._rows[slot]])
        # after the forward that reads the slot: the next upload into it waits for this
        check(cudart.cudaEventRecord(self._consumed[slot], compute))
        return logits[:, -1].argmax(dim=-1)


def greedy_step_all(prefetcher: InputPrefetcher, batches: List[np.ndarray]) -> List[List[int]]:
    """One greedy step over every batch, uploads overlapped with the forward passes."""
    if not batches:
        return []
    prefetcher.stage(0, batches[0])
    outs = []
    for i in range(len(batches)):
        if i + 1 < len(batches):
            prefetcher.stage(i + 1, batches[i + 1])
        outs.append(prefetcher.run(i))
    return [t.tolist() for t in outs]
