from dataclasses import dataclass


@dataclass(frozen=True)
class EMAConfig:
    decay: float = 0.9999
    update_every: int = 10
    """Snapshot the weights to the host every N optimizer steps."""
    warmup_steps: int = 0
    use_warmup_decay: bool = True
    """Ramp the decay as min(decay, (1 + n) / (10 + n)) over the first updates."""

    def decay_at(self, num_updates: int) -> float:
        if not self.use_warmup_decay:
            return self.decay
        return min(self.decay, (1.0 + num_updates) / (10.0 + num_updates))
