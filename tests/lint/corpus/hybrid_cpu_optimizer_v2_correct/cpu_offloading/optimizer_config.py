from dataclasses import dataclass


@dataclass
class CPUOffloadConfig:
    """Options for updating a fraction of the parameters with a host optimizer."""

    offload_fraction: float = 0.5
    """Fraction of the device parameters whose update runs on the host."""

    overlap_cpu_optimizer_d2h_h2d: bool = True
    """Use side streams for gradient D2H and parameter H2D so they overlap with compute."""

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True
