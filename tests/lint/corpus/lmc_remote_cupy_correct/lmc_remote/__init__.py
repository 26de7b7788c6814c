from lmc_remote.backend import RemoteBackend
from lmc_remote.config import RemoteBackendConfig

__all__ = ["RemoteBackend", "RemoteBackendConfig"]
