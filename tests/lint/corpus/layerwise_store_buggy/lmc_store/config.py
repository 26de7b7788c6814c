# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_cpu: bool = True
    max_local_cpu_size: float = 5.0  # GiB
    use_layerwise: bool = True
    save_unfull_chunk: bool = True
