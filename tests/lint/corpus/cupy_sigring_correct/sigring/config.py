from __future__ import annotations

import enum
from dataclasses import dataclass


class Window(enum.Enum):
    HANN = "hann"
    BLACKMAN = "blackman"
    RECT = "rect"


@dataclass(frozen=True)
class RingConfig:
    n_slots: int = 4
    frame_len: int = 8192
    channels: int = 16
    window: Window = Window.HANN
    queue_depth: int = 8
    floor_db: float = -120.0

    @property
    def n_bins(self) -> int:
        return self.frame_len // 2 + 1

    @property
    def slot_shape(self) -> tuple[int, int]:
        return (self.channels, self.n_bins)
