from dataclasses import dataclass, field

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorMetadata


@dataclass
class CPUOffloadMetadata(KVConnectorMetadata):
    load_cpu_blocks: list[int] = field(default_factory=list)
    load_gpu_blocks: list[int] = field(default_factory=list)
    load_req_ids: list[str] = field(default_factory=list)
    store_gpu_blocks: list[int] = field(default_factory=list)
    store_cpu_blocks: list[int] = field(default_factory=list)
    store_req_ids: list[str] = field(default_factory=list)
