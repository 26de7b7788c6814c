from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class Packet:
    pts: int
    keyframe: bool
    payload: bytes


class MockNvDecoder:
    """Stand-in for the hardware decoder: writes NV12->RGB frames into caller buffers on its own stream."""

    def __init__(self, height: int, width: int, device: torch.device) -> None:
        self.stream = torch.cuda.Stream(device)
        self._gen = torch.Generator(device=device).manual_seed(0)
        self.height, self.width = height, width

    def decode_into(self, packet: Packet, out: torch.Tensor) -> torch.cuda.Event:
        """Decode ``packet`` into ``out`` (3, H, W) uint8; returns an event marking completion."""
        done = torch.cuda.Event()
        with torch.cuda.stream(self.stream):
            torch.randint(0, 256, out.shape, generator=self._gen, dtype=out.dtype, device=out.device, out=out)
            done.record(self.stream)
        return done
