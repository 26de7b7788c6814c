from __future__ import annotations

from dataclasses import dataclass

NUM_SLOTS = 2
THREADS_PER_BLOCK = 256
SCORE_THREADS = 128


@dataclass(frozen=True)
class PipelineConfig:
    batch_size: int = 64
    height: int = 224
    width: int = 224
    channels: int = 3

    @property
    def batch_shape(self) -> tuple[int, int, int, int]:
        return (self.batch_size, self.height, self.width, self.channels)

    @property
    def pixels_per_batch(self) -> int:
        return self.batch_size * self.height * self.width
