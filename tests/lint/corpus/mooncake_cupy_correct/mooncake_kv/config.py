# SPDX-License-Identifier: Apache-2.0
import json
import os
from dataclasses import dataclass

MOONCAKE_CONFIG_ENV = "MOONCAKE_CONFIG_PATH"
DEFAULT_GLOBAL_SEGMENT_SIZE = 3355443200
DEFAULT_LOCAL_BUFFER_SIZE = 1073741824
SEND_THREAD_NAME = "mooncake-kv-send"
RECV_THREAD_NAME = "mooncake-kv-recv"


@dataclass
class MooncakeStoreConfig:
    local_hostname: str
    metadata_server: str
    master_server_address: str
    protocol: str = "tcp"
    device_name: str = ""
    global_segment_size: int = DEFAULT_GLOBAL_SEGMENT_SIZE
    local_buffer_size: int = DEFAULT_LOCAL_BUFFER_SIZE
    model_name: str = ""
    save_in_forward: bool = False

    @staticmethod
    def from_file(path: str) -> "MooncakeStoreConfig":
        with open(path) as f:
            cfg = json.load(f)
        return MooncakeStoreConfig(**cfg)

    @staticmethod
    def load_from_env() -> "MooncakeStoreConfig":
        path = os.getenv(MOONCAKE_CONFIG_ENV)
        if not path:
            raise ValueError(f"{MOONCAKE_CONFIG_ENV} is not set")
        return MooncakeStoreConfig.from_file(path)
