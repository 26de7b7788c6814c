import dataclasses


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    # percent of layers whose KV cache goes to disk instead of host memory
    cache_disk_percent: float
    # whether to overlap I/O with compute using extra streams
    overlap: bool
    pin_weight: bool = True
    offload_dir: str = "~/flexsched_offload_dir"

    def cache_on_disk(self, layer_idx: int, num_layers: int) -> bool:
        return layer_idx >= num_layers * (1 - self.cache_disk_percent / 100)
