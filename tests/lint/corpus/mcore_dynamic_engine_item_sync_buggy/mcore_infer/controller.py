"""Forward + sampling, in the shape of ``TextGenerationController``."""

import torch


class TextGenerationController:
    def __init__(self, model, temperature: float = 1.0, top_k: int = 0):
        self.model = model
        self.temperature = temperature
        self.top_k = top_k

    @torch.no_grad()
    def forward(self, context):
        n = context.total_request_count
        return self.model(context.new_tokens[:n], context.request_kv_lengths[:n])

    def sample(self, logits: torch.Tensor) -> torch.Tensor:
        if self.top_k == 1 or self.temperature == 0.0:
            return torch.argmax(logits, dim=-1)
        logits = logits.float() / self.temperature
        if self.top_k > 1:
            kth = torch.topk(logits, self.top_k, dim=-1).values[:, -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return torch.multinomial(torch.softmax(logits, dim=-1), 1).squeeze(-1)
