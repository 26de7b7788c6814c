from dataclasses import dataclass


@dataclass
class CPUOffloadConfig:
    offload_fraction: float = 1.0
    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True
    # Skip the update when any offloaded gradient is inf/nan.
    check_for_nan_in_grad: bool = True
    num_cpu_threads: int = 4
    params_per_group: int = 16
