"""What a step hands back to the engine core."""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import List


@dataclass
class SchedulerOutput:
    req_ids: List[str]
    input_ids: object
    positions: object
    partial_prefill_req_ids: set = field(default_factory=set)

    @property
    def num_reqs(self) -> int:
        return len(self.req_ids)


@dataclass
class ModelRunnerOutput:
    req_ids: List[str]
    req_id_to_index: dict
    sampled_token_ids: List[List[int]] = field(default_factory=list)


class AsyncModelRunnerOutput(ABC):
    @abstractmethod
    def get_output(self) -> ModelRunnerOutput:
        """Block until the step's results are on the host and return them."""
