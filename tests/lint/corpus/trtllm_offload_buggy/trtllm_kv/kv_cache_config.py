from dataclasses import dataclass

DEFAULT_RETENTION_PRIORITY = 35


@dataclass
class KvCacheConfig:
    tokens_per_block: int = 32
    max_gpu_blocks: int = 4096
    host_cache_size: int = 0  # bytes of pinned host memory for the secondary pool
    enable_block_reuse: bool = True
    onboard_blocks: bool = True
    secondary_offload_min_priority: int = DEFAULT_RETENTION_PRIORITY
