from .base import HiCacheStorage, StorageBackendFactory
from . import file_backend  # noqa: F401  (registers "file")
