from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KvCacheConfig:
    """Subset of the llmapi KvCacheConfig used by the Python block manager."""
    tokens_per_block: int = 32
    max_tokens: int = 8192
    # Size of the secondary (pinned host) block pool in bytes; 0 disables it.
    host_cache_size: int = 0
    # Copy reused host blocks back to the primary pool instead of recomputing.
    onboard_blocks: bool = True
    # Block the host until the device is idle before each offload.
    sync_offload: bool = False
    enable_block_reuse: bool = True
