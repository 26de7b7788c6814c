# SPDX-License-Identifier: Apache-2.0
import os
from dataclasses import dataclass, field


@dataclass
class CPUOffloadConfig:
    num_cpu_blocks: int
    cudart_path: str = field(
        default_factory=lambda: os.getenv("VLLM_CUDART_SO_PATH", "libcudart.so.12"))
    use_batch_memcpy: bool = True
    # cudaMemcpySrcAccessOrder used for batched stores (GPU -> CPU)
    batch_src_access_order: int = 1
    min_batch_runtime_version: int = 12080
