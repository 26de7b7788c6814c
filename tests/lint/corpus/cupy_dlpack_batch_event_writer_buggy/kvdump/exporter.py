"""Copies pages of torch's paged KV cache into the staging ring with cupy."""
from typing import Sequence

import cupy as cp
import torch

from .writer import WriteJob


class PageExporter:
    def __init__(self, kv_cache: torch.Tensor, ring, jobs):
        # zero-copy view of the torch tensor: (num_pages, page_tokens, width)
        self._pages = cp.from_dlpack(kv_cache)
        self._ring = ring
        self._jobs = jobs
        self._stream = cp.cuda.Stream(non_blocking=True)

    def export(self, page_ids: Sequence[int], keys: Sequence[str]) -> None:
        # order the export stream behind everything torch has queued on its current stream
        torch_stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        self._stream.wait_event(torch_stream.record())
        # one event for the whole batch: recording per page costs a driver call each
        copied = cp.cuda.Event(disable_timing=True)
        for page_id, key in zip(page_ids, keys):
            slot = self._ring.acquire()
            self._pages[page_id].get(stream=self._stream, out=slot.buf, blocking=False)
            self._jobs.put(WriteJob(key, slot, copied))
        copied.record(self._stream)
