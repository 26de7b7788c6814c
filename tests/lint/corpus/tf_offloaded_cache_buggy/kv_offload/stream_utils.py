"""Small helpers around the side streams used by the offloaded cache."""
import torch

from .config import STREAM_NAMES


class StreamSet:
    """Owns one side stream per role; roles are exposed as properties."""

    def __init__(self, device: torch.device):
        self.device = device
        self._streams = {name: torch.cuda.Stream(device=device) for name in STREAM_NAMES}

    @property
    def offload(self) -> torch.cuda.Stream:
        return self._streams["offload"]

    @property
    def prefetch(self) -> torch.cuda.Stream:
        return self._streams["prefetch"]


def order_after_compute(side: torch.cuda.Stream) -> None:
    """Make `side` wait for everything already queued on the compute stream."""
    side.wait_stream(torch.cuda.current_stream(side.device))


def join_into_compute(side: torch.cuda.Stream) -> None:
    """Make the compute stream wait for everything queued on `side`."""
    torch.cuda.current_stream(side.device).wait_stream(side)
