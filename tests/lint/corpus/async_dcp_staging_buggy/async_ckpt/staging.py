from __future__ import annotations

from dataclasses import dataclass
from typing import Dict

import torch
from cuda.bindings import driver

from ._cuda import STAGING_FLAGS, STAGING_SRC_ACCESS_ORDER, check, new_event, new_stream


@dataclass
class StagedCheckpoint:
    step: int
    buffers: Dict[str, torch.Tensor]
    done_event: driver.CUevent


class PinnedStager:
    """Copies a flat state dict into reusable pinned host buffers with a single
    ``cuMemcpyBatchAsync`` on a dedicated staging stream."""

    def __init__(self, device: int | None = None):
        self.device = torch.cuda.current_device() if device is None else device
        self._stream = new_stream()
        self._produced = new_event()
        self._buffers: Dict[str, torch.Tensor] = {}

    def _buffer_for(self, key: str, t: torch.Tensor) -> torch.Tensor:
        buf = self._buffers.get(key)
        if buf is None or buf.shape != t.shape or buf.dtype != t.dtype:
            buf = torch.empty(t.shape, dtype=t.dtype, device="cpu", pin_memory=True)
            self._buffers[key] = buf
        return buf

    def _copy_attributes(self) -> driver.CUmemcpyAttributes:
        attrs = driver.CUmemcpyAttributes()
        attrs.srcAccessOrder = STAGING_SRC_ACCESS_ORDER
        attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        attrs.srcLocHint.id = self.device
        attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        attrs.flags = STAGING_FLAGS
        return attrs

    def stage(self, state_dict: Dict[str, torch.Tensor], step: int) -> StagedCheckpoint:
        dsts, srcs, sizes = [], [], []
        staged: Dict[str, torch.Tensor] = {}
        for key, t in state_dict.items():
            t = t.detach()
            buf = self._buffer_for(key, t)
            staged[key] = buf
            if not t.is_cuda:
                buf.copy_(t)
                continue
            if not t.is_contiguous():
                raise ValueError(f"{key}: staging requires contiguous tensors")
            dsts.append(buf.data_ptr())
            srcs.append(t.data_ptr())
            sizes.append(t.numel() * t.element_size())

        # Order the staging stream after everything the trainer has queued so far.
        producer = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        check(driver.cuEventRecord(self._produced, producer))
        check(driver.cuStreamWaitEvent(self._stream, self._produced, 0))
        if dsts:
            attrs = self._copy_attributes()
            check(
                # expect: KVG002
                driver.cuMemcpyBatchAsync(
                    dsts, srcs, sizes, len(dsts), [attrs], [0], 1, self._stream
                )
            )
        done = new_event()
        check(driver.cuEventRecord(done, self._stream))
        # The next optimizer step must not overwrite the sources before they are staged.
        check(driver.cuStreamWaitEvent(producer, done, 0))
        return StagedCheckpoint(step=step, buffers=staged, done_event=done)
