from .config import EMAConfig
from .ema import CPUEMAModel

__all__ = ["CPUEMAModel", "EMAConfig"]
