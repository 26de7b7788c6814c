"""Spill settings, in the style of megatron-core's InferenceConfig dataclasses."""
from dataclasses import dataclass, field

from cuda.bindings import driver

_Order = driver.CUmemcpySrcAccessOrder


@dataclass
class KVSpillConfig:
    host_blocks: int = 4096
    """Number of KV blocks the pinned host pool holds."""

    spill_mode: str = "eager"
    """'eager': let the driver pick up an evicted block as early as it can; 'ordered': read
    blocks strictly in spill-stream order."""

    overlap_with_compute: bool = True

    spill_src_access_order: _Order = field(init=False)
    restore_src_access_order: _Order = field(init=False)

    def __post_init__(self):
        if self.spill_mode not in ("eager", "ordered"):
            raise ValueError(f"unknown spill_mode {self.spill_mode!r}")
        if self.spill_mode == "eager":
            # the spill stream waits on the step event before the batch is issued, so the
            # blocks are final by then
            self.spill_src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        else:
            self.spill_src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        # restores read pinned host blocks that nothing writes while they are in flight
        self.restore_src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
