from __future__ import annotations

import enum
from dataclasses import dataclass, field

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorMetadata


class TransferDirection(enum.Enum):
    GPU_TO_CPU = "gpu_to_cpu"
    CPU_TO_GPU = "cpu_to_gpu"


@dataclass
class ReqTransferSpec:
    req_id: str
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]
    direction: TransferDirection = TransferDirection.GPU_TO_CPU

    def __post_init__(self) -> None:
        if len(self.gpu_block_ids) != len(self.cpu_block_ids):
            raise ValueError(
                f"block count mismatch for {self.req_id}: "
                f"{len(self.gpu_block_ids)} != {len(self.cpu_block_ids)}")

    @property
    def num_blocks(self) -> int:
        return len(self.gpu_block_ids)


@dataclass
class CPUOffloadConnectorMetadata(KVConnectorMetadata):
    """Built by the scheduler-side connector once per engine step."""

    stores: list[ReqTransferSpec] = field(default_factory=list)

    def add_store(self, spec: ReqTransferSpec) -> None:
        self.stores.append(spec)

    @property
    def num_store_blocks(self) -> int:
        return sum(spec.num_blocks for spec in self.stores)
