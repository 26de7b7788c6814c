from dataclasses import dataclass
from typing import Tuple


@dataclass
class CPUOffloadOptimizerConfig:
    lr: float = 3.0e-4
    weight_decay: float = 0.1
    adam_betas: Tuple[float, float] = (0.9, 0.95)
    adam_eps: float = 1.0e-8
    clip_grad: float = 1.0
    """Gradient clipping based on global L2 norm (0 disables clipping)."""
    overlap_cpu_optimizer_d2h_h2d: bool = True
    """Step each bucket's CPU optimizer as soon as its gradients have landed on the host."""
    d2h_stream_priority: int = 0
