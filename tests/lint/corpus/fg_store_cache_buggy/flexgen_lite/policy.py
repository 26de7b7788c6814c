import dataclasses

GPU = "cuda:0"
NUM_BUFFERS = 2  # double buffering: layer j uses slot j % 2


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    prompt_len: int
    gen_len: int
    hidden_size: int
    num_layers: int
    pin_weight: bool = True
    overlap: bool = True

    @property
    def max_seq_len(self) -> int:
        return self.prompt_len + self.gen_len
