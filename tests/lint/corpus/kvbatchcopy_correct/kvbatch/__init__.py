# SPDX-License-Identifier: Apache-2.0
"""Batched device-to-host offload of paged KV blocks with the CUDA driver API."""

from kvbatch.copier import BatchBlockCopier
from kvbatch.host_pool import PinnedHostPool
from kvbatch.offloader import KVBlockOffloader, OffloadConfig

__all__ = ["BatchBlockCopier", "KVBlockOffloader", "OffloadConfig", "PinnedHostPool"]
