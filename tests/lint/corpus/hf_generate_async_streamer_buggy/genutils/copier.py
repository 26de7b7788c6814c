"""Device-to-host copies of each step's sampled tokens, off the decode loop's critical path."""

import torch

from .streamers import TokenChunk


class TokenCopier:
    def __init__(self, device: torch.device):
        self.device = device
        self.copy_stream = torch.cuda.Stream(device=device)

    def to_host(self, tokens: torch.Tensor, step: int, is_prompt: bool = False) -> TokenChunk:
        # the sampler wrote ``tokens`` on the compute stream
        self.copy_stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.copy_stream):
            host = torch.empty(tokens.shape, dtype=tokens.dtype, pin_memory=True)
            host.copy_(tokens, non_blocking=True)
            tokens.record_stream(self.copy_stream)
            chunk = TokenChunk(step=step, host_tokens=host, is_prompt=is_prompt)
            chunk.ready.record(self.copy_stream)
        return chunk
