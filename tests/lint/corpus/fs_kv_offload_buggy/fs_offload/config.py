import os
from dataclasses import dataclass

DEFAULT_ROOT_DIR = "/tmp/vllm_kv_offload"
HASH_SHARD_CHARS = 2


@dataclass
class FsOffloadConfig:
    root_dir: str = DEFAULT_ROOT_DIR
    num_staging_buffers: int = 4
    max_blocks_per_job: int = 64
    num_io_threads: int = 2

    def path_for(self, block_hash: str) -> str:
        shard = block_hash[:HASH_SHARD_CHARS]
        return os.path.join(self.root_dir, shard, f"{block_hash}.kv")
