"""Greedy decode loop that exports top-k logprobs of every step."""

import torch

from .exporter import ExportConfig, LogprobExporter


class DecodeRunner:
    def __init__(self, model: torch.nn.Module, max_batch: int, top_k: int = 20):
        self.model = model
        self.top_k = top_k
        self.exporter = LogprobExporter(ExportConfig(max_batch=max_batch, top_k=top_k))

    @torch.inference_mode()
    def step(self, input_ids: torch.Tensor, step: int) -> torch.Tensor:
        logits = self.model(input_ids)[:, -1, :]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        values, token_ids = torch.topk(logprobs, self.top_k, dim=-1)
        self.exporter.submit(values, token_ids, step)
        return token_ids[:, :1]

    def generate(self, input_ids: torch.Tensor, max_new_tokens: int):
        trace = []
        for step in range(max_new_tokens):
            next_ids = self.step(input_ids, step)
            input_ids = torch.cat([input_ids, next_ids], dim=-1)
            if step >= 1:
                trace.append(self.exporter.collect(step - 1))
        trace.append(self.exporter.collect(max_new_tokens - 1))
        return input_ids, trace
