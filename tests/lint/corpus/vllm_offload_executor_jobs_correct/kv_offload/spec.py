"""Transfer specs exchanged between the scheduler-side offloading manager and the worker."""

from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np
import torch

STORE = "store"
LOAD = "load"


@dataclass
class OffloadingConfig:
    num_cpu_blocks: int
    block_size_factor: int = 1
    # async scheduling: the model runner does not wait for a step's sampled tokens
    # before the next step is scheduled, so the compute stream may be one step ahead
    async_scheduling: bool = True


@dataclass
class TransferJob:
    job_id: int
    direction: str
    gpu_block_ids: np.ndarray
    cpu_block_ids: np.ndarray
    ready: Optional[torch.cuda.Event] = None
    req_ids: List[str] = field(default_factory=list)
