# SPDX-License-Identifier: Apache-2.0
"""Spilling paged KV blocks held in CuPy arrays to local disk."""

from cupyspill.backend import LocalDiskBackend
from cupyspill.engine import SpillEngine
from cupyspill.kvcache import PagedKVCache
from cupyspill.pinned import PinnedBufferPool

__all__ = ["LocalDiskBackend", "PagedKVCache", "PinnedBufferPool", "SpillEngine"]
