# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class PipelineOffloadConfig:
    pipeline_model_parallel_size: int = 1
    pipeline_model_parallel_rank: int = 0
    num_microbatches: int = 1
    offload_recompute_inputs: bool = True
    """Copy the recompute checkpoint of each microbatch to pinned host memory between its forward and backward."""
    stream_priority: int = 0
