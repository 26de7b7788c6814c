"""GPU histogram accumulation over streamed value batches (numba.cuda)."""
from binstats.accumulator import HistogramAccumulator
from binstats.config import AccumulatorConfig

__all__ = ["AccumulatorConfig", "HistogramAccumulator"]
