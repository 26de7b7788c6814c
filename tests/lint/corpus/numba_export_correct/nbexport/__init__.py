"""Normalize device-resident embedding batches and export them to the host."""

from nbexport.pipeline import EmbeddingExporter
from nbexport.sink import RowStatsSink

__all__ = ["EmbeddingExporter", "RowStatsSink"]
