# SPDX-License-Identifier: Apache-2.0
"""Batched offload of paged KV blocks into a pinned host arena (CUDA driver API)."""

# First Party
from kvbatch.host_store import HostKVStore
from kvbatch.offloader import PagedKVOffloader

__all__ = ["HostKVStore", "PagedKVOffloader"]
