import dataclasses
from typing import Optional


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    # percentages of weights / kv cache kept on each tier; the rest goes to disk
    w_gpu_percent: float = 0.0
    w_cpu_percent: float = 100.0
    cache_gpu_percent: float = 0.0
    cache_cpu_percent: float = 100.0
    pin_weight: bool = True
    offload_dir: Optional[str] = None

    @property
    def w_disk_percent(self) -> float:
        return 100.0 - self.w_gpu_percent - self.w_cpu_percent

    @property
    def cache_disk_percent(self) -> float:
        return 100.0 - self.cache_gpu_percent - self.cache_cpu_percent


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    name: str = "opt-6.7b"
    num_layers: int = 66  # embed + 2 per decoder block + head: always even
    hidden_size: int = 4096
    dtype_bytes: int = 2
