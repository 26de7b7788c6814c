"""Device-resident LoRA adapter slots with background host-to-device prefetch."""

from .engine import LoraConfig, LoraLayerRunner

__all__ = ["LoraConfig", "LoraLayerRunner"]
