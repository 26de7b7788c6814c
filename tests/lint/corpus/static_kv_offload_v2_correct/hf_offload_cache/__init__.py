from .attention import decode_step, sdpa_attention_forward
from .cache_utils import Cache, OffloadedStaticCache
from .configuration_utils import OffloadCacheConfig

__all__ = ["Cache", "OffloadedStaticCache", "OffloadCacheConfig", "decode_step", "sdpa_attention_forward"]
