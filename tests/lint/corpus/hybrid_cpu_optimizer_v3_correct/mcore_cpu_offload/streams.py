from typing import Tuple

import torch


def build_transfer_streams(overlap: bool) -> Tuple[torch.cuda.Stream, torch.cuda.Stream]:
    """Return (d2h, h2d) streams; without overlap both copies run on the current stream."""
    if not overlap:
        current = torch.cuda.current_stream()
        return current, current
    return torch.cuda.Stream(), torch.cuda.Stream()
