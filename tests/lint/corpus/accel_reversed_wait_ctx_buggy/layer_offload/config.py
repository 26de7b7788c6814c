from dataclasses import dataclass


@dataclass
class LayerOffloadConfig:
    """Options of ``attach_layer_offload``, named like accelerate's ``cpu_offload`` arguments."""

    execution_device: str = "cuda"
    # load layer i + 1 while layer i runs; without it each layer is loaded by its own pre-hook
    prefetch_next_layer: bool = True
    offload_buffers: bool = False
