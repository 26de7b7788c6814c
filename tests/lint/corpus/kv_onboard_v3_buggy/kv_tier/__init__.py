from kv_tier.kv_cache_manager import KVCacheManager

__all__ = ["KVCacheManager"]
