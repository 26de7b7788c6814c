# SPDX-License-Identifier: Apache-2.0
from kvspill.config import SpillConfig
from kvspill.connector import PagedKVStoreConnector, TensorMemoryObj
from kvspill.disk_backend import LocalDiskBackend
from kvspill.engine import SpillCacheEngine

__all__ = [
    "SpillConfig",
    "PagedKVStoreConnector",
    "TensorMemoryObj",
    "LocalDiskBackend",
    "SpillCacheEngine",
]
