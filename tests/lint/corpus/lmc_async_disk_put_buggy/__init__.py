"""Non-paged GPU connector feeding an asyncio-driven local disk backend."""

from .gpu_connector import VLLMNestedTupleGPUConnector
from .memory import MemoryObj, PinnedMemoryAllocator
from .storage import LMCacheEngine, LocalDiskBackend, StorageManager
