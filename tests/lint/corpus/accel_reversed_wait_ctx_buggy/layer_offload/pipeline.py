"""Generation with an offloaded decoder: only the embeddings and the head stay on the device."""

import torch

from .config import LayerOffloadConfig
from .offloader import attach_layer_offload


def prepare_offloaded_model(model, config: LayerOffloadConfig = None):
    config = config or LayerOffloadConfig()
    model.embed_tokens.to(config.execution_device)
    model.norm.to(config.execution_device)
    model.lm_head.to(config.execution_device)
    return attach_layer_offload(model, config)


@torch.inference_mode()
def greedy_generate(model, input_ids, max_new_tokens):
    for _ in range(max_new_tokens):
        hidden = model.embed_tokens(input_ids)
        for layer in model.layers:
            hidden = layer(hidden)
        logits = model.lm_head(model.norm(hidden[:, -1]))
        input_ids = torch.cat([input_ids, logits.argmax(-1, keepdim=True)], dim=-1)
    return input_ids
