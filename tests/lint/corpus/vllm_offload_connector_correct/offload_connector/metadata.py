from __future__ import annotations

from dataclasses import dataclass, field

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorMetadata


@dataclass
class ReqMeta:
    req_id: str
    block_ids: list[int]
    # files under the offload root, one per layer: "<root>/<req_id>/<layer>.bin"
    storage_prefix: str


@dataclass
class CPUOffloadConnectorMetadata(KVConnectorMetadata):
    requests_to_save: list[ReqMeta] = field(default_factory=list)
    requests_to_load: list[ReqMeta] = field(default_factory=list)

    def add_save(self, req_id: str, block_ids: list[int], root: str) -> None:
        self.requests_to_save.append(ReqMeta(req_id, list(block_ids), f"{root}/{req_id}"))

    def add_load(self, req_id: str, block_ids: list[int], root: str) -> None:
        self.requests_to_load.append(ReqMeta(req_id, list(block_ids), f"{root}/{req_id}"))
