import dataclasses


@dataclasses.dataclass(frozen=True)
class CompressionConfig:
    """Group-wise quantization of the host KV cache."""
    num_bits: int = 8
    group_size: int = 64
    group_dim: int = 2


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int

    # percent of weights kept on gpu; the rest is streamed per layer
    w_gpu_percent: float = 0.0
    cache_gpu_percent: float = 100.0

    # keep a (compressed) host copy of every generated kv slab
    cpu_cache_mirror: bool = True
    compress_cache: bool = False
    comp_cache_config: CompressionConfig = CompressionConfig()

    num_cpu_workers: int = 4

    @property
    def w_cpu_percent(self):
        return 100.0 - self.w_gpu_percent
