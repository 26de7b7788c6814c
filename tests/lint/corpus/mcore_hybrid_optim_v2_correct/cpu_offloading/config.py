from dataclasses import dataclass


@dataclass
class OptimizerOffloadConfig:
    """Configuration for offloading part of the optimizer step to the CPU."""

    offload_fraction: float = 1.0
    """Fraction of parameters whose optimizer step runs on the CPU."""

    overlap_cpu_optimizer_d2h_h2d: bool = True
    """Run gradient D2H and parameter H2D copies on dedicated streams."""

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True

    check_for_nan_in_grad: bool = False
    """Check the host gradients for NaN/Inf before stepping."""

    num_cpu_step_workers: int = 4
