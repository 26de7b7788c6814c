# SPDX-License-Identifier: Apache-2.0
# Third Party
import torch


def gather_layer_kv(
    dst: torch.Tensor, kv_layer: torch.Tensor, slot_mapping: torch.Tensor
) -> None:
    """Gather the slots of one paged KV layer into a [2, T, D] buffer.

    The kernel is enqueued on the caller's current stream.
    """
    hidden_dim = dst.shape[-1]
    num_tokens = slot_mapping.numel()
    paged = kv_layer.view(2, -1, hidden_dim)
    torch.index_select(paged, 1, slot_mapping, out=dst[:, :num_tokens])
