"""Batch sentence-embedding export: torch encoder, CuPy post-processing, .npy shards on disk."""

from .encoder import EmbeddingWorker, EncodedBatch
from .export import ExportConfig, ShardExporter

__all__ = ["EmbeddingWorker", "EncodedBatch", "ExportConfig", "ShardExporter"]
