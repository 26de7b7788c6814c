"""Actor that spills paged KV-cache blocks from GPU to a host-side object store."""

from .actor import KVOffloadActor
from .config import OffloadConfig
from .host_store import HostObjectStore

__all__ = ["HostObjectStore", "KVOffloadActor", "OffloadConfig"]
