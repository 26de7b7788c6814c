"""The server's runner: each ``generate`` call runs the decode loop under the runner's compute
stream (``with torch.cuda.stream(self.compute_stream)``) and spills the finished sequence's cache
before leaving the stream block. Bug: see serving/spill_cache.py."""

import torch

from serving.spill_cache import SpillCache


class Runner:
    def __init__(self, model, num_layers, device="cuda"):
        self.model = model
        self.device = torch.device(device)
        self.compute_stream = torch.cuda.Stream(self.device)
        self.cache = SpillCache(num_layers, self.device)

    @torch.no_grad()
    def generate(self, seq_id, input_ids, max_new_tokens):
        with torch.cuda.stream(self.compute_stream):
            out = self.model(input_ids=input_ids.to(self.device), use_cache=True)
            past = out.past_key_values
            token = out.logits[:, -1:].argmax(-1)
            tokens = [token]
            for _ in range(max_new_tokens - 1):
                out = self.model(input_ids=token, past_key_values=past, use_cache=True)
                past = out.past_key_values
                token = out.logits[:, -1:].argmax(-1)
                tokens.append(token)
            self.cache.spill(seq_id, past)
            return torch.cat(tokens, dim=-1)
