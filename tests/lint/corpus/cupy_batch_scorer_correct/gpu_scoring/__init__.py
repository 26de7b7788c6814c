"""Streamed scoring of feature batches on the GPU with CuPy."""
from gpu_scoring.scorer import BatchScorer, ScorerConfig

__all__ = ["BatchScorer", "ScorerConfig"]
