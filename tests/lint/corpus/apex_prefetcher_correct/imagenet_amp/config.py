from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class TrainArgs:
    batch_size: int = 256
    crop_size: int = 224
    workers: int = 8
    print_freq: int = 10
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 1e-4
    # ImageNet statistics in [0, 1] units; scaled to [0, 255] by the prefetcher.
    mean: tuple[float, float, float] = (0.485, 0.456, 0.406)
    std: tuple[float, float, float] = (0.229, 0.224, 0.225)

    @property
    def input_shape(self) -> tuple[int, int, int, int]:
        return (self.batch_size, 3, self.crop_size, self.crop_size)
