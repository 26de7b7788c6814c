from .accumulator import HistogramAccumulator
from .sink import HistogramSink

__all__ = ["HistogramAccumulator", "HistogramSink"]
