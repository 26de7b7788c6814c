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
        if self.config.prefer_overlap:
            attrs.srcAccessOrder = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        else:
            attrs.srcAccessOrder = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        return attrs

    def transfer(self, num_bytes: int, tasks: Sequence[CopyTask], stream) -> None:
        attrs = self._attributes()
        for begin in range(0, len(tasks), self.config.max_batch):
            batch = tasks[begin:begin + self.config.max_batch]
            # expect: KVG002
            _unwrap(drv.cuMemcpyBatchAsync(
                [t.dst for t in batch], [t.src for t in batch], [num_bytes] * len(batch),
                len(batch), [attrs], [0], 1, stream,
            ))
