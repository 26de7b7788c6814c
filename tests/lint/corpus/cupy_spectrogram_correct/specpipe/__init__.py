from .config import SpectrogramConfig
from .pipeline import SpectrogramPipeline
from .writer import SpectrogramWriter

__all__ = ["SpectrogramConfig", "SpectrogramPipeline", "SpectrogramWriter"]
