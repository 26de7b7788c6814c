# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import queue
from typing import Dict, List, Optional

import torch

from .detokenize_worker import DetokenizeWorker
from .inference_request import InferenceRequest, Status, StepOutput
from .token_buffers import PinnedTokenRing


class TextGenerationController:
    """Runs decode steps and hands sampled ids to a background detokenizer."""

    def __init__(self, inference_wrapped_model, tokenizer, max_batch_size: int, num_ring_slots: int = 4):
        self.inference_wrapped_model = inference_wrapped_model
        self.tokenizer = tokenizer
        self.device = torch.device("cuda", torch.cuda.current_device())
        self.d2h_stream = torch.cuda.Stream(device=self.device)
        self.token_ring = PinnedTokenRing(num_ring_slots, max_batch_size)
        self.requests: Dict[str, InferenceRequest] = {}
        self.step_outputs: "queue.Queue[Optional[StepOutput]]" = queue.Queue()
        self.worker = DetokenizeWorker(self.step_outputs, tokenizer, self.token_ring, self.requests)
        self.worker.start()

    @staticmethod
    def sample_from_logits(last_token_logits: torch.Tensor, temperature: float = 1.0, top_k: int = 0) -> torch.Tensor:
        if top_k == 1:
            return torch.argmax(last_token_logits, dim=-1)
        logits = last_token_logits / max(temperature, 1e-5)
        if top_k > 1:
            kth = torch.topk(logits, top_k, dim=-1).values[..., -1, None]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        probs = torch.softmax(logits.float(), dim=-1)
        return torch.multinomial(probs, num_samples=1).view(-1)

    def _stage_tokens(self, request_ids: List[str], new_tokens: torch.Tensor) -> None:
        slot, host_tokens = self.token_ring.acquire()
        self.d2h_stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.d2h_stream):
            host_tokens[: new_tokens.numel()].copy_(new_tokens, non_blocking=True)
        new_tokens.record_stream(self.d2h_stream)
        ready = torch.cuda.Event()
        ready.record()
        self.step_outputs.put(StepOutput(request_ids, slot, new_tokens.numel(), host_tokens, ready))

    @torch.inference_mode()
    def generate_step(
        self,
        active: List[InferenceRequest],
        tokens: torch.Tensor,
        position_ids: torch.Tensor,
        temperature: float = 1.0,
        top_k: int = 0,
    ) -> torch.Tensor:
        for request in active:
            self.requests.setdefault(request.request_id, request)
            request.status = Status.ACTIVE_AND_GENERATING_TOKENS
        logits = self.inference_wrapped_model.run_one_forward_step(tokens, position_ids)
        new_tokens = self.sample_from_logits(logits[:, -1, :], temperature, top_k)
        self._stage_tokens([r.request_id for r in active], new_tokens)
        return new_tokens

    def shutdown(self) -> None:
        self.step_outputs.put(None)
        self.worker.join()
