# SPDX-License-Identifier: Apache-2.0
# Third Party
import torch

# First Party
from layerkv.memory import MemoryObj


def offload_layer_chunk(
    memory_obj: MemoryObj,
    kv_layer: torch.Tensor,
    slot_start: int,
    slot_end: int,
) -> None:
    """Copy one token range of a ``[2, num_slots, hidden]`` layer into a
    pinned memory object. Runs on whatever stream is current."""
    assert memory_obj.tensor is not None
    src = kv_layer[:, slot_start:slot_end]
    # expect: KVG001
    memory_obj.tensor.copy_(src, non_blocking=True)
