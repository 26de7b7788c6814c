"""Batched page copies between tiers with cuMemcpyBatchAsync (CUDA >= 12.8)."""

from dataclasses import dataclass
from typing import Sequence

import cuda.bindings.driver as drv

from ._cuda import CopyTask, _unwrap


@dataclass
class TransferConfig:
    # let page copies run alongside the model's kernels
    prefer_overlap: bool = True
    max_batch: int = 512


class CopyEngine:
    def __init__(self, config: TransferConfig):
        self.config = config

    def _attributes(self):
        attrs = drv.CUmemcpyAttributes()
        # sources are read in stream order: GPU pages may still be written by the model and
        # host pages by an earlier offload on the same stream
        attrs.srcAccessOrder = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        if self.config.prefer_overlap:
            attrs.flags = drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        return attrs

    def transfer(self, num_bytes: int, tasks: Sequence[CopyTask], stream) -> None:
        attrs = self._attributes()
        for begin in range(0, len(tasks), self.config.max_batch):
            batch = tasks[begin:begin + self.config.max_batch]
            _unwrap(drv.cuMemcpyBatchAsync(
                [t.dst for t in batch], [t.src for t in batch], [num_bytes] * len(batch),
                len(batch), [attrs], [0], 1, stream,
            ))
