from dataclasses import dataclass


@dataclass
class PyTorchConfig:
    max_batch_size: int = 256
    max_num_sequences: int = 512
    max_draft_len: int = 0
    max_beam_width: int = 1
    enable_iter_perf_stats: bool = False
    max_stats_len: int = 1000
    disable_overlap_scheduler: bool = False
