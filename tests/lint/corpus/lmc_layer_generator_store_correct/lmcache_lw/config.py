from dataclasses import dataclass

import torch


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    use_layerwise: bool = True
    local_cpu: bool = True
    max_local_cpu_size: float = 5.0  # GB


@dataclass
class LMCacheEngineMetadata:
    model_name: str
    world_size: int
    worker_id: int
    num_layers: int
    block_size: int
    num_kv_heads: int
    head_size: int
    kv_dtype: torch.dtype = torch.bfloat16
