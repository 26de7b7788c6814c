from dataclasses import dataclass


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_cpu_chunks: int = 512
    store_workers: int = 2
    save_unfull_chunk: bool = True
