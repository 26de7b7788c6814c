# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""One step of the dynamic inference engine."""

import torch

from .context import DynamicInferenceContext
from .mirrors import ChunkedPrefillMirror, StepMetadataMirror


class DynamicInferenceEngine:

    def __init__(self, model, max_requests, chunk_size):
        self.model = model
        self.context = DynamicInferenceContext(max_requests, chunk_size)
        self.step_mirror = StepMetadataMirror(self.context)
        self.prefill_mirror = ChunkedPrefillMirror(self.context)
        self.slot_to_request = {}

    def add_request(self, request_id, slot, prompt_len, max_output):
        self.context.add_request(slot, prompt_len, max_output)
        self.slot_to_request[slot] = request_id

    @torch.inference_mode()
    def step(self, input_ids, active_mask):
        logits = self.model(input_ids, self.context)
        sampled = torch.argmax(logits, dim=-1)
        self.context.update_requests(active_mask, sampled)

        self.step_mirror.refresh()
        if self.context.chunked_prefill_active:
            self.prefill_mirror.refresh()

        self.step_mirror.wait()
        finished = [self.slot_to_request[s] for s, n in enumerate(self.step_mirror["output_lengths"].tolist())
                    if n <= 0 and s in self.slot_to_request]
        still_prefilling = []
        if self.context.chunked_prefill_active:
            self.prefill_mirror.wait()
            still_prefilling = [s for s, n in enumerate(self.prefill_mirror["prefill_remaining"].tolist()) if n > 0]
            self.context.chunked_prefill_active = bool(still_prefilling)
        return finished, still_prefilling
