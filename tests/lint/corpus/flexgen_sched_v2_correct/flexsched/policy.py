import dataclasses


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int
    # Keep weights and cache in pinned host memory and stream them in per layer.
    pin_weight: bool = True
    overlap: bool = True
    num_copy_threads: int = 3


@dataclasses.dataclass(frozen=True)
class Task:
    inputs: list
    prompt_len: int
    gen_len: int


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    name: str = "opt-6.7b"
    num_hidden_layers: int = 32
    hidden_size: int = 4096
    n_head: int = 32
    dtype: str = "float16"
