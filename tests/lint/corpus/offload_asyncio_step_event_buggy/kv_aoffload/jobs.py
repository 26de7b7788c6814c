from typing import NamedTuple, Optional

import torch


class TransferJob(NamedTuple):
    job_id: int
    src_blocks: list[int]
    dst_blocks: list[int]
    gpu_to_cpu: bool
    stream: torch.cuda.Stream
    # point on the compute stream the copy must not start before
    ready: Optional[torch.cuda.Event]
    done: torch.cuda.Event
