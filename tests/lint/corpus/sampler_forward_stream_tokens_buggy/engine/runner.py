"""A decode step whose model runs on the caller's stream; the sampled tokens are copied to the
host on a separate copy stream that never waits for the kernels that computed them."""

from __future__ import annotations

import torch


class ModelRunner:
    def __init__(self, model: torch.nn.Module, device: torch.device) -> None:
        self.model = model
        self.device = device
        self.copy_stream = torch.cuda.Stream(device=device)

    def step(self, input_ids: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.cuda.Event]:
        logits = self.model(input_ids, positions)
        next_tokens = torch.argmax(logits[:, -1, :], dim=-1)
        with torch.cuda.stream(self.copy_stream):
            # expect: KVG001
            tokens_host = next_tokens.to("cpu", non_blocking=True)
            copied = torch.cuda.Event()
            copied.record()
        return tokens_host, copied


def decode_loop(
    runner: ModelRunner, input_ids: torch.Tensor, positions: torch.Tensor, steps: int
) -> list[int]:
    out: list[int] = []
    for _ in range(steps):
        tokens_host, copied = runner.step(input_ids, positions)
        copied.synchronize()
        out.extend(tokens_host.tolist())
    return out
