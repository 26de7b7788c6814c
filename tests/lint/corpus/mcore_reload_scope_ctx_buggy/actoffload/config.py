from dataclasses import dataclass


@dataclass(frozen=True)
class ActivationOffloadConfig:
    num_groups: int
    min_offload_numel: int = 1 << 20
    reuse_reload_buffers: bool = True
