# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass, field
from typing import List


@dataclass
class SamplingParams:
    """Inference parameters sent along with the prompts."""

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 0.0
    return_log_probs: bool = False
    streaming: bool = False
    num_tokens_to_generate: int = 30
    stop_token_ids: List[int] = field(default_factory=list)

    def add_attributes(self, attribute_value_pair: dict) -> None:
        for key, value in attribute_value_pair.items():
            setattr(self, key, value)
