from dataclasses import dataclass
from typing import Any

from .constants import (
    MEMCPY_FLAG_DEFAULT,
    MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE,
    SRC_ACCESS_ORDER_ANY,
    SRC_ACCESS_ORDER_STREAM,
)


@dataclass
class SimpleCPUOffloadConfig:
    num_cpu_blocks: int
    store_src_access_order: int = SRC_ACCESS_ORDER_ANY
    load_src_access_order: int = SRC_ACCESS_ORDER_STREAM
    store_flags: int = MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    load_flags: int = MEMCPY_FLAG_DEFAULT

    @classmethod
    def from_extra_config(cls, extra_config: dict[str, Any]) -> "SimpleCPUOffloadConfig":
        num_cpu_blocks = int(extra_config.get("num_cpu_blocks", 0))
        if num_cpu_blocks <= 0:
            raise ValueError("SimpleCPUOffloadConnector requires num_cpu_blocks > 0")
        return cls(num_cpu_blocks=num_cpu_blocks)
