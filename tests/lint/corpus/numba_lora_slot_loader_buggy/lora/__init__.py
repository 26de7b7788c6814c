from .manager import LoRAManager

__all__ = ["LoRAManager"]
