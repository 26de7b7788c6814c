# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Per-request bookkeeping of the dynamic-batching inference context, kept on the GPU so
that the step's kernels can update it without a host round trip."""

import torch


class DynamicInferenceContext:

    def __init__(self, max_requests, chunk_size, device="cuda"):
        self.max_requests = max_requests
        self.chunk_size = chunk_size
        self.request_query_lengths = torch.zeros(max_requests, dtype=torch.int32, device=device)
        self.request_kv_length_offsets = torch.zeros(max_requests, dtype=torch.int32, device=device)
        self.request_output_lengths = torch.zeros(max_requests, dtype=torch.int32, device=device)
        self.request_last_token = torch.zeros(max_requests, dtype=torch.int64, device=device)
        # chunked prefill: how much of each request's prompt is still to be prefilled
        self.request_prefill_remaining = torch.zeros(max_requests, dtype=torch.int32, device=device)
        self.chunked_prefill_active = False

    def add_request(self, slot, prompt_len, max_output):
        self.request_prefill_remaining[slot] = prompt_len
        self.request_query_lengths[slot] = min(prompt_len, self.chunk_size)
        self.request_kv_length_offsets[slot] = 0
        self.request_output_lengths[slot] = max_output
        self.chunked_prefill_active = self.chunked_prefill_active or prompt_len > self.chunk_size

    def update_requests(self, active_mask, sampled_tokens):
        """Advance every active request by the tokens this step processed."""
        processed = self.request_query_lengths * active_mask
        self.request_kv_length_offsets.add_(processed)
        self.request_prefill_remaining.sub_(processed).clamp_(min=0)
        decoding = self.request_prefill_remaining.eq(0) & active_mask.bool()
        self.request_output_lengths.sub_(decoding.int())
        self.request_last_token.copy_(torch.where(decoding, sampled_tokens, self.request_last_token))
        self.request_query_lengths.copy_(
            torch.where(decoding, torch.ones_like(self.request_query_lengths),
                        self.request_prefill_remaining.clamp(max=self.chunk_size)))
