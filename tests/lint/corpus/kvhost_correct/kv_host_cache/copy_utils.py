from typing import Sequence

import torch


def copy_blocks_to_host(host_pool: torch.Tensor, device_pool: torch.Tensor,
                        block_ids: Sequence[int], host_slots: Sequence[int],
                        stream: torch.cuda.Stream) -> torch.cuda.Event:
    """Gather primary blocks into pinned host slots on ``stream``.

    Returns an event recorded on ``stream`` once every copy is queued.
    """
    with torch.cuda.stream(stream):
        for block_id, slot in zip(block_ids, host_slots):
            host_pool[slot].copy_(device_pool[block_id], non_blocking=True)
        done = torch.cuda.Event()
        done.record(stream)
    return done
