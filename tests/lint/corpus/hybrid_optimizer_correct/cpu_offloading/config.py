from dataclasses import dataclass


@dataclass
class CPUOffloadOptimizerConfig:
    """Configuration for splitting optimizer updates between the GPU and the host."""

    offload_fraction: float = 0.5
    """Fraction of the GPU parameters (by numel) whose update runs on the CPU."""

    overlap_cpu_optimizer_d2h_h2d: bool = True
    """Use dedicated streams for gradient D2H and parameter H2D transfers."""

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True

    check_for_nan_in_grad: bool = False
    """Validate host gradient copies before the CPU optimizers consume them."""
