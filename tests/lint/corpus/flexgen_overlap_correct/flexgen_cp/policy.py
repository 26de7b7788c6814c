import dataclasses
import os


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int

    # percent of weights kept resident on GPU; the rest is streamed per layer
    w_gpu_percent: float = 0.0
    # spill KV of attention layers to disk for long prompts
    cache_disk_percent: float = 100.0
    # overlap I/O and compute
    overlap: bool = True
    # separate attention and mlp into two layers
    sep_layer: bool = True
    offload_dir: str = "~/flexgen_offload_dir"
    spill_buffers: int = 4

    @property
    def spill_dir(self) -> str:
        return os.path.expanduser(self.offload_dir)
