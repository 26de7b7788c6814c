from .config import ExportConfig
from .runner import EncoderRunner

__all__ = ["EncoderRunner", "ExportConfig"]
