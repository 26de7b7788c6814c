"""Per-row mean / max-abs statistics computed with cuda.core and read back in one batch."""

from .runner import RowStats, RowStatsRunner

__all__ = ["RowStats", "RowStatsRunner"]
