from dataclasses import dataclass


@dataclass
class OffloadParamConfig:
    """The ``offload_param`` section of a ZeRO config that the streamer reads."""

    device: str = "cpu"
    pin_memory: bool = True
    buffer_count: int = 2
    buffer_size: int = 1 << 27
    max_in_cpu: int = 1 << 33
