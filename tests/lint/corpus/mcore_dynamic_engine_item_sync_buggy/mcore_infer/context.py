"""Request bookkeeping in the shape of megatron-core's ``DynamicInferenceContext``: every active
request owns one row of a set of preallocated device tensors; finished requests are compacted away."""

import torch


class DynamicInferenceContext:
    def __init__(self, max_requests: int, max_sequence_length: int, device=None):
        self.device = device if device is not None else torch.cuda.current_device()
        self.max_requests = max_requests
        self.max_sequence_length = max_sequence_length
        self.request_ids = torch.full((max_requests,), -1, dtype=torch.int64, device=self.device)
        self.request_query_lengths = torch.zeros(max_requests, dtype=torch.int32, device=self.device)
        self.request_output_lengths = torch.zeros(max_requests, dtype=torch.int32, device=self.device)
        self.request_kv_lengths = torch.zeros(max_requests, dtype=torch.int32, device=self.device)
        self.new_tokens = torch.zeros(max_requests, dtype=torch.int64, device=self.device)
        self.finished = torch.zeros(max_requests, dtype=torch.bool, device=self.device)
        self.total_request_count = 0

    def add_request(self, request_id: int, prompt_tokens: torch.Tensor, num_tokens_to_generate: int):
        if self.total_request_count == self.max_requests:
            raise RuntimeError("request table is full")
        idx = self.total_request_count
        self.request_ids[idx] = request_id
        self.request_query_lengths[idx] = prompt_tokens.numel()
        self.request_kv_lengths[idx] = 0
        self.request_output_lengths[idx] = prompt_tokens.numel() + num_tokens_to_generate
        self.new_tokens[idx] = prompt_tokens[-1]
        self.finished[idx] = False
        self.total_request_count += 1

    def update_requests(self, sampled: torch.Tensor, termination_id: int) -> int:
        """Write the tokens sampled this step into the request table, on the compute stream."""
        n = self.total_request_count
        self.new_tokens[:n].copy_(sampled)
        self.request_kv_lengths[:n] += self.request_query_lengths[:n]
        self.request_query_lengths[:n] = 1
        torch.logical_or(sampled == termination_id,
                         self.request_kv_lengths[:n] + 1 >= self.request_output_lengths[:n],
                         out=self.finished[:n])
        return n

    def compact(self, n: int) -> int:
        """Drop the finished rows among the first ``n``; returns how many stay active."""
        keep = ~self.finished[:n]
        kept = int(keep.sum().item())
        for table in (self.request_ids, self.request_query_lengths, self.request_output_lengths,
                      self.request_kv_lengths, self.new_tokens):
            table[:kept] = table[:n][keep]
        self.finished[:kept] = False
        self.total_request_count = kept
        return kept
