# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from dataclasses import dataclass, field
from typing import Callable, Dict, List

import torch

from .inference_context import DynamicInferenceContext
from .metadata_mirror import HostMetadataMirror

logger = logging.getLogger(__name__)


@dataclass
class InferenceRequest:
    request_id: int
    prompt_tokens: List[int]
    max_sequence_length: int
    generated_tokens: List[int] = field(default_factory=list)
    sequence_length: int = 0
    status: str = "active"


class DynamicInferenceEngine:
    def __init__(
        self,
        model: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
        context: DynamicInferenceContext,
        termination_id: int,
        temperature: float = 1.0,
    ):
        self.model = model
        self.context = context
        self.termination_id = termination_id
        self.temperature = temperature
        self.requests: Dict[int, InferenceRequest] = {}
        self.mirror = HostMetadataMirror(context.metadata_tensors())

    def add_request(self, request: InferenceRequest) -> None:
        self.requests[request.request_id] = request
        self.context.add_request(
            request.request_id,
            request.prompt_tokens[-1],
            len(request.prompt_tokens),
            request.max_sequence_length,
        )

    def _sample(self, logits: torch.Tensor) -> torch.Tensor:
        if self.temperature == 0.0:
            return logits.argmax(dim=-1)
        probs = torch.softmax(logits.float() / self.temperature, dim=-1)
        return torch.multinomial(probs, num_samples=1).squeeze(-1)

    @torch.inference_mode()
    def step(self) -> List[InferenceRequest]:
        n = self.context.total_request_count
        if n == 0:
            return []
        logits = self.model(self.context.last_token_ids[:n], self.context.sequence_lengths[:n])
        self.context.update_requests(self._sample(logits), self.termination_id)

        self.mirror.pull(n, torch.cuda.current_stream())
        self.mirror.wait()
        tokens = self.mirror.host["last_token_ids"][:n].tolist()
        lengths = self.mirror.host["sequence_lengths"][:n].tolist()
        finished = self.mirror.host["finished_flags"][:n].tolist()

        completed, keep = [], []
        for idx, request_id in enumerate(self.context.host_request_ids[:n]):
            request = self.requests[request_id]
            request.generated_tokens.append(tokens[idx])
            request.sequence_length = lengths[idx]
            if finished[idx]:
                request.status = "completed"
                completed.append(self.requests.pop(request_id))
            else:
                keep.append(idx)
        if completed:
            self.context.compact(keep)
            logger.info("step finished %d requests, %d active", len(completed), len(keep))
        return completed
