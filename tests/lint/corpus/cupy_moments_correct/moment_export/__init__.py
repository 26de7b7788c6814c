"""Streamed per-feature moments computed with CuPy and exported to a record file."""

from .fetcher import MomentExporter
from .sink import PendingRecord, RecordSink

__all__ = ["MomentExporter", "PendingRecord", "RecordSink"]
