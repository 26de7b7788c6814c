from __future__ import annotations

import io
from collections import deque
from dataclasses import dataclass

import torch
from PIL import Image


@dataclass
class _Slot:
    host: torch.Tensor  # pinned (th, tw, 3) uint8
    done: torch.cuda.Event
    pts: int = -1


class ThumbnailSink:
    """Copies thumbnails to pinned memory on a side stream; JPEG-encodes them once their event fires."""

    def __init__(self, shape: tuple[int, int, int], depth: int, device: torch.device) -> None:
        self.stream = torch.cuda.Stream(device, priority=0)
        self._slots = [
            _Slot(torch.empty(shape, dtype=torch.uint8, pin_memory=True), torch.cuda.Event())
            for _ in range(depth)
        ]
        self._next = 0
        self._pending: deque[_Slot] = deque()

    def enqueue(self, pts: int, thumb: torch.Tensor, ready: torch.cuda.Event) -> None:
        if len(self._pending) == len(self._slots):
            self._encode(self._pending.popleft())
        slot = self._slots[self._next]
        self._next = (self._next + 1) % len(self._slots)
        self.stream.wait_event(ready)
        with torch.cuda.stream(self.stream):
            slot.host.copy_(thumb, non_blocking=True)
            slot.done.record(self.stream)
        thumb.record_stream(self.stream)
        slot.pts = pts
        self._pending.append(slot)

    def poll(self) -> list[tuple[int, bytes]]:
        out = []
        while self._pending and self._pending[0].done.query():
            out.append(self._encode(self._pending.popleft()))
        return out

    def _encode(self, slot: _Slot) -> tuple[int, bytes]:
        slot.done.synchronize()
        buf = io.BytesIO()
        Image.fromarray(slot.host.numpy()).save(buf, format="JPEG", quality=80)
        return slot.pts, buf.getvalue()
