# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class InferenceConfig:
    """Static-batch inference settings."""

    max_batch_size: int = 8
    max_sequence_length: int = 2048
    padded_vocab_size: int = 32000
    sampling_threads_per_block: int = 256


@dataclass
class SamplingParams:
    num_tokens_to_generate: int = 64
    return_log_probs: bool = False
    termination_id: int = 2
