# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import enum
from dataclasses import dataclass, field
from typing import Any, List, Optional


class Status(enum.Enum):
    WAITING_IN_QUEUE = 1
    ACTIVE_BUT_NOT_GENERATING_TOKENS = 2
    ACTIVE_AND_GENERATING_TOKENS = 3
    COMPLETED = 4


@dataclass
class InferenceRequest:
    request_id: str
    prompt_tokens: List[int]
    num_tokens_to_generate: int
    status: Status = Status.WAITING_IN_QUEUE
    generated_tokens: List[int] = field(default_factory=list)
    generated_text: str = ""
    termination_id: Optional[int] = None


@dataclass
class StepOutput:
    """One decode step's sampled ids, staged in a pinned ring slot."""

    request_ids: List[str]
    slot: int
    num_tokens: int
    host_tokens: Any
    ready: Any
