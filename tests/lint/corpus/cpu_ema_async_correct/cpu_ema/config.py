from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EMAConfig:
    decay: float = 0.9999
    update_every: int = 10
    start_step: int = 100
    # warmup as in timm's ModelEmaV3: decay = 1 - (1 + step / gamma) ** -power
    use_warmup: bool = True
    warmup_gamma: float = 1.0
    warmup_power: float = 2 / 3

    def decay_at(self, step: int) -> float:
        if not self.use_warmup:
            return self.decay
        warm = 1.0 - (1.0 + step / self.warmup_gamma) ** -self.warmup_power
        return max(0.0, min(self.decay, warm))
