"""Secondary (host) tier for paged KV blocks, driven through cuda.bindings."""

from .host_tier import HostKVTier, HostTierConfig

__all__ = ["HostKVTier", "HostTierConfig"]
