# SPDX-License-Identifier: Apache-2.0
from ._offload_manager import KVCacheHostOffloadManager

__all__ = ["KVCacheHostOffloadManager"]
