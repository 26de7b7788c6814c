# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import torch


def mark_current() -> torch.cuda.Event:
    """Record an event at the tail of whatever stream is current."""
    event = torch.cuda.Event()
    event.record()
    return event
