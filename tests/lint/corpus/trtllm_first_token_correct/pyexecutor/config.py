from dataclasses import dataclass


@dataclass
class PyExecutorConfig:
    max_batch_size: int = 256
    max_num_sequences: int = 512
    max_beam_width: int = 1
    disable_overlap_scheduler: bool = False
    stream_first_token: bool = True
    return_log_probs: bool = False
