import dataclasses

import numpy as np

DEVICE_DTYPE = np.float16
CPU_COMPUTE_DTYPE = np.float32


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_heads: int
    head_dim: int
    max_seq_len: int

    # Keep the KV cache in host memory and run attention over it on the CPU
    cpu_cache_compute: bool = True

    # Number of CPU threads the attention worker may use through BLAS
    cpu_threads: int = 8

    @property
    def hidden_size(self) -> int:
        return self.num_heads * self.head_dim
