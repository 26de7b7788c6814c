from dataclasses import dataclass


@dataclass
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int
    # percentage of the KV cache kept on the GPU; the rest lives in pinned host memory
    cache_gpu_percent: int = 0
    overlap: bool = True
    sep_layer: bool = True

    @property
    def cache_on_cpu(self):
        return self.cache_gpu_percent < 100
