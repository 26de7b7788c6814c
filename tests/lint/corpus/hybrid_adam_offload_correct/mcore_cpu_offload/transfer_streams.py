# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Tuple

import torch


def get_transfer_streams(overlap: bool) -> Tuple[torch.cuda.Stream, torch.cuda.Stream]:
    """Returns the (d2h, h2d) streams used by the host-side optimizer."""
    if not overlap:
        current = torch.cuda.current_stream()
        return current, current
    return torch.cuda.Stream(), torch.cuda.Stream()
