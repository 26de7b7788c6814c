# SPDX-License-Identifier: Apache-2.0
# Third Party
import torch

# First Party
from kvoffload.memory import MemoryObj


def gather_layer_slots(
    kv_layer: torch.Tensor, slot_mapping: torch.Tensor, out: torch.Tensor
) -> None:
    """Gather paged slots of one layer ([2, num_slots, hidden]) into ``out``."""
    torch.index_select(kv_layer, 1, slot_mapping, out=out)


def copy_chunk_to_host(
    memory_obj: MemoryObj, src: torch.Tensor, start: int, end: int
) -> None:
    # expect: KVG001
    memory_obj.tensor.copy_(src[:, start:end], non_blocking=True)
