from .config import EMAConfig
from .ema import HostEMA

__all__ = ["EMAConfig", "HostEMA"]
