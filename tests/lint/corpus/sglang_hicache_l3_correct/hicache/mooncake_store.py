import json
import logging
import os
from dataclasses import dataclass

import torch

logger = logging.getLogger(__name__)

DEFAULT_GLOBAL_SEGMENT_SIZE = 4 * 1024**3
DEFAULT_LOCAL_BUFFER_SIZE = 512 * 1024**2


@dataclass
class MooncakeStoreConfig:
    local_hostname: str
    metadata_server: str
    master_server_address: str
    protocol: str = "rdma"
    device_name: str = ""
    global_segment_size: int = DEFAULT_GLOBAL_SEGMENT_SIZE
    local_buffer_size: int = DEFAULT_LOCAL_BUFFER_SIZE

    @staticmethod
    def from_file() -> "MooncakeStoreConfig":
        path = os.getenv("MOONCAKE_CONFIG_PATH")
        if path is None:
            raise ValueError("MOONCAKE_CONFIG_PATH is not set")
        with open(path) as f:
            cfg = json.load(f)
        return MooncakeStoreConfig(
            local_hostname=cfg.get("local_hostname", "localhost"),
            metadata_server=cfg["metadata_server"],
            master_server_address=cfg["master_server_address"],
            protocol=cfg.get("protocol", "rdma"),
            device_name=cfg.get("device_name", ""),
        )


class MooncakeStore:
    def __init__(self, config: MooncakeStoreConfig | None = None):
        try:
            from mooncake.store import MooncakeDistributedStore
        except ImportError as e:
            raise ImportError("Please install mooncake to use the L3 storage backend.") from e

        self.config = config or MooncakeStoreConfig.from_file()
        self.store = MooncakeDistributedStore()
        ret = self.store.setup(
            self.config.local_hostname,
            self.config.metadata_server,
            self.config.global_segment_size,
            self.config.local_buffer_size,
            self.config.protocol,
            self.config.device_name,
            self.config.master_server_address,
        )
        if ret != 0:
            raise RuntimeError(f"Mooncake store setup failed: {ret}")

    def batch_set(self, keys: list[str], values: list[torch.Tensor]) -> bool:
        payloads = []
        for value in values:
            payloads.append(value.numpy().tobytes())
        ret = self.store.put_batch(keys, payloads)
        if ret != 0:
            logger.warning("Mooncake put_batch failed for %d keys: %d", len(keys), ret)
        return ret == 0

    def batch_get_into(self, keys: list[str], ptrs: list[int], sizes: list[int]) -> int:
        """Read objects straight into host memory. Returns the number of
        leading keys that were fetched completely."""
        results = self.store.batch_get_into(keys, ptrs, sizes)
        for i, (r, size) in enumerate(zip(results, sizes)):
            if r != size:
                return i
        return len(keys)

    def batch_exists(self, keys: list[str]) -> list[bool]:
        return [r == 1 for r in self.store.batch_is_exist(keys)]
