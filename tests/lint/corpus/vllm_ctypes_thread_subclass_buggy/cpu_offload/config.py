"""Offload settings, read from the connector's kv_connector_extra_config."""

from dataclasses import dataclass
from typing import Any, Dict

from cpu_offload.cudart import cudaMemcpySrcAccessOrder


@dataclass
class CPUOffloadConfig:
    num_cpu_blocks: int = 4096
    # the stream has already waited on the step's compute event when a batch is issued, so
    # let the copy engine start on the source as early as the driver can
    store_src_order: cudaMemcpySrcAccessOrder = cudaMemcpySrcAccessOrder.Any
    load_src_order: cudaMemcpySrcAccessOrder = cudaMemcpySrcAccessOrder.Any
    prefer_overlap_with_compute: bool = True

    @classmethod
    def from_extra_config(cls, extra: Dict[str, Any]) -> "CPUOffloadConfig":
        return cls(
            num_cpu_blocks=int(extra.get("num_cpu_blocks", 4096)),
            prefer_overlap_with_compute=bool(extra.get("prefer_overlap_with_compute", True)),
        )
