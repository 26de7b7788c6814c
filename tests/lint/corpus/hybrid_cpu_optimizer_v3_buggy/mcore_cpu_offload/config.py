from dataclasses import dataclass


@dataclass
class HybridOptimizerConfig:
    """Options behind --optimizer-cpu-offload."""

    offload_fraction: float = 1.0
    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True
    overlap_cpu_optimizer_d2h_h2d: bool = True
    # Inspect the host copies of the gradients before the CPU step and skip the
    # step when a non-finite value is found.
    check_for_nan_in_grad: bool = False
    log_grad_norm: bool = False
