# SPDX-License-Identifier: Apache-2.0
# Third Party
import torch


def scatter_layer_kv(
    kv_layer: torch.Tensor, src: torch.Tensor, slot_mapping: torch.Tensor
) -> None:
    """Write a [2, T, D] buffer into the slots of one paged KV layer.

    Enqueued on the caller's current stream.
    """
    hidden_dim = src.shape[-1]
    num_tokens = slot_mapping.numel()
    paged = kv_layer.view(2, -1, hidden_dim)
    paged.index_copy_(1, slot_mapping, src[:, :num_tokens])
