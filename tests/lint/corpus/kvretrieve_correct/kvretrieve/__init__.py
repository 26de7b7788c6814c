# SPDX-License-Identifier: Apache-2.0
"""Retrieval of cached KV chunks from CPU memory into the paged GPU cache."""

from kvretrieve.config import RetrieveConfig
from kvretrieve.connector import PagedRetrieveConnector
from kvretrieve.storage import CacheRetriever, LocalCPUBackend, MemoryObj

__all__ = [
    "CacheRetriever",
    "LocalCPUBackend",
    "MemoryObj",
    "PagedRetrieveConnector",
    "RetrieveConfig",
]
