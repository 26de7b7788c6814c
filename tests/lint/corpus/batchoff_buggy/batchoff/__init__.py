# SPDX-License-Identifier: Apache-2.0
"""Block-granular KV offload between paged GPU caches and pinned CPU caches."""
from batchoff.offload import KVBlockOffloader

__all__ = ["KVBlockOffloader"]
