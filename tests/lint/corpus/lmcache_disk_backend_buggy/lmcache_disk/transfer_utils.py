from __future__ import annotations

import torch

from .memory_obj import MemoryObj


def wait_for_transfer(memory_obj: MemoryObj) -> None:
    """Block the calling thread until ``memory_obj`` holds its final bytes."""
    event = memory_obj.ready_event
    if event is None or event.query():
        return
    torch.cuda.current_stream().synchronize()
