"""GPU channeliser: FIR-less power detection over fixed-size voltage chunks."""

from .config import ChannelizerConfig
from .pipeline import Channelizer

__all__ = ["ChannelizerConfig", "Channelizer"]
