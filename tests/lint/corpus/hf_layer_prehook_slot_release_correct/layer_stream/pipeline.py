"""A decoder whose layers are streamed through the device."""

import torch

from .streamer import LayerStreamer


class StreamedDecoder(torch.nn.Module):
    def __init__(self, embed, layers, norm, lm_head, device):
        super().__init__()
        self.embed = embed.to(device)
        self.layers = torch.nn.ModuleList(layers)
        self.norm = norm.to(device)
        self.lm_head = lm_head.to(device)
        self.streamer = LayerStreamer(self.layers, device)

    @torch.no_grad()
    def forward(self, input_ids):
        self.streamer.prefetch(0)
        hidden = self.embed(input_ids)
        for layer in self.layers:
            hidden = layer(hidden)
        return self.lm_head(self.norm(hidden))


@torch.no_grad()
def greedy_generate(model, input_ids, max_new_tokens):
    for _ in range(max_new_tokens):
        logits = model(input_ids)
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
        input_ids = torch.cat([input_ids, next_token], dim=-1)
    return input_ids
