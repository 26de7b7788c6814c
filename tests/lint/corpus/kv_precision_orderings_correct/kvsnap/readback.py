"""Sampled tokens come back to the host on the compute stream itself; the blocking read of the
valid count orders the host behind those copies."""

import torch


class TokenReadback:
    def __init__(self, max_tokens, pad_id=-1):
        self.pad_id = pad_id
        self.num_valid = torch.zeros((), dtype=torch.int64, device="cuda")
        self.host_tokens = torch.empty(max_tokens, dtype=torch.int64, pin_memory=True)
        self.host_logprobs = torch.empty(max_tokens, dtype=torch.float32, pin_memory=True)

    def fetch(self, sampled, logprobs):
        n = sampled.shape[0]
        torch.sum(sampled.ne(self.pad_id), dim=0, out=self.num_valid)
        stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            self.host_tokens[:n].copy_(sampled, non_blocking=True)
            self.host_logprobs[:n].copy_(logprobs, non_blocking=True)
        count = self.num_valid.item()
        return self.host_tokens[:count].tolist(), self.host_logprobs[:count].tolist()
