"""Offload settings, read from the connector's kv_connector_extra_config."""

from dataclasses import dataclass
from typing import Any, Dict

from cpu_offload.cudart import cudaMemcpySrcAccessOrder


@dataclass
class CPUOffloadConfig:
    num_cpu_blocks: int = 4096
    # stores read GPU blocks the compute stream writes: the copy must see the stream's wait on
    # the compute event, so the source is read in stream order
    store_src_order: cudaMemcpySrcAccessOrder = cudaMemcpySrcAccessOrder.Stream
    # loads read pinned host blocks nothing writes while they are in flight
    load_src_order: cudaMemcpySrcAccessOrder = cudaMemcpySrcAccessOrder.Any
    prefer_overlap_with_compute: bool = True

    @classmethod
    def from_extra_config(cls, extra: Dict[str, Any]) -> "CPUOffloadConfig":
        return cls(
            num_cpu_blocks=int(extra.get("num_cpu_blocks", 4096)),
            prefer_overlap_with_compute=bool(extra.get("prefer_overlap_with_compute", True)),
        )
