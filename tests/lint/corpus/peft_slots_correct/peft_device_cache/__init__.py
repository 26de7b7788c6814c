"""Device-side slot cache for LoRA adapter weights, fed from a pinned host cache."""

from .config import PeftCacheConfig
from .device_cache import DeviceSlotCache
from .host_cache import HostAdapterCache
from .lora_step import LoraStepRunner

__all__ = ["DeviceSlotCache", "HostAdapterCache", "LoraStepRunner", "PeftCacheConfig"]
