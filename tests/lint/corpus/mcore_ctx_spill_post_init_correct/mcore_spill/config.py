"""Spill settings, in the style of megatron-core's InferenceConfig dataclasses."""
from dataclasses import dataclass, field

from cuda.bindings import driver

_Order = driver.CUmemcpySrcAccessOrder


@dataclass
class KVSpillConfig:
    host_blocks: int = 4096
    """Number of KV blocks the pinned host pool holds."""

    spill_mode: str = "eager"
    """'eager': ask the driver to overlap spills with compute; 'ordered': plain copies."""

    overlap_with_compute: bool = True

    spill_src_access_order: _Order = field(init=False)
    restore_src_access_order: _Order = field(init=False)

    def __post_init__(self):
        if self.spill_mode not in ("eager", "ordered"):
            raise ValueError(f"unknown spill_mode {self.spill_mode!r}")
        # spills read device blocks the model has just written: whatever the mode, the driver
        # must read them in stream order, i.e. after the spill stream's wait on the step event
        self.spill_src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        if self.spill_mode == "ordered":
            self.overlap_with_compute = False
        # restores read pinned host blocks that nothing writes while they are in flight
        self.restore_src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
