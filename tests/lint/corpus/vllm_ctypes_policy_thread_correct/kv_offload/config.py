"""Offload connector settings as parsed from ``kv_connector_extra_config``.

Stores read the GPU KV cache, which the model writes: they must read it in stream order (after
the wait on the compute event). Loads read pinned host memory no stream writes, so ANY is fine."""

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
    TransferDirection.GPU_TO_CPU: CopyPolicy(SrcAccessOrder.STREAM),
    TransferDirection.CPU_TO_GPU: CopyPolicy(SrcAccessOrder.ANY),
}


@dataclass
class CPUOffloadConfig:
    num_cpu_blocks: int
    policies: Dict[TransferDirection, CopyPolicy] = field(default_factory=lambda: dict(DEFAULT_COPY_POLICIES))
