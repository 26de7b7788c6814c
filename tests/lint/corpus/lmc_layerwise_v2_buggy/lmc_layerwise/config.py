from dataclasses import dataclass


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    block_size: int = 16
    local_cpu: bool = True
    max_local_cpu_size: float = 5.0  # GB
    use_layerwise: bool = True
    save_unfull_chunk: bool = False
