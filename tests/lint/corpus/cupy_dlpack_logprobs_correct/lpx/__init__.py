"""Top-k logprob export for a torch decoder, done with cupy on a side stream."""

from .exporter import ExportConfig, LogprobExporter
from .runner import DecodeRunner

__all__ = ["DecodeRunner", "ExportConfig", "LogprobExporter"]
