"""Offload connector settings as parsed from ``kv_connector_extra_config``.

Bug: the default copy policy asks for ANY source access order in both directions. ANY is meant
for loads out of pinned host memory; for a store the source is the GPU KV cache, and ANY lets
the driver read it before the wait on the compute event that precedes the copy on the stream."""

import enum
from dataclasses import dataclass, field
from typing import Dict

from kv_offload.cuda_batch import SrcAccessOrder


class TransferDirection(enum.Enum):
    GPU_TO_CPU = "gpu_to_cpu"
    CPU_TO_GPU = "cpu_to_gpu"


@dataclass(frozen=True)
class CopyPolicy:
    src_access_order: SrcAccessOrder
    prefer_overlap: bool = True


DEFAULT_COPY_POLICIES: Dict[TransferDirection, CopyPolicy] = {
    TransferDirection.GPU_TO_CPU: CopyPolicy(SrcAccessOrder.ANY),
    TransferDirection.CPU_TO_GPU: CopyPolicy(SrcAccessOrder.ANY),
}


@dataclass
class CPUOffloadConfig:
    num_cpu_blocks: int
    policies: Dict[TransferDirection, CopyPolicy] = field(default_factory=lambda: dict(DEFAULT_COPY_POLICIES))
