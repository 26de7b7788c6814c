import dataclasses


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int
    overlap: bool = True
    pin_weight: bool = True


@dataclasses.dataclass
class Task:
    prompt_len: int
    gen_len: int


@dataclasses.dataclass
class ModelShape:
    num_layers: int
    hidden_size: int
    vocab_size: int
    dtype: str = "float16"
