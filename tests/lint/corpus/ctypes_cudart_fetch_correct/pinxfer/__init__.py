"""Minimal result fetcher for engines that only hand out raw device pointers and a stream handle."""

from ._cudart import CudaError, MemcpyKind
from .fetcher import FetchResult, ResultFetcher
from .staging import PinnedStaging

__all__ = ["CudaError", "FetchResult", "MemcpyKind", "PinnedStaging", "ResultFetcher"]
