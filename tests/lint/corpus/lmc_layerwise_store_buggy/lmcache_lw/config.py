from dataclasses import dataclass

import torch


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_disk_path: str = "/tmp/lmcache_disk"
    max_local_disk_workers: int = 4
    pinned_pool_bytes: int = 4 << 30
    use_layerwise: bool = True


@dataclass
class LMCacheEngineMetadata:
    model_name: str
    num_layers: int
    num_kv_heads: int
    head_size: int
    block_size: int
    kv_dtype: torch.dtype = torch.bfloat16

    @property
    def hidden_dim(self) -> int:
        return self.num_kv_heads * self.head_size
