from dataclasses import dataclass
from enum import Enum


class OffloadDeviceEnum(str, Enum):
    none = "none"
    cpu = "cpu"
    nvme = "nvme"


@dataclass
class OffloadOptimizerConfig:
    device: OffloadDeviceEnum = OffloadDeviceEnum.cpu
    pin_memory: bool = True
    overlap_comm: bool = True
    reduce_bucket_size: int = 50_000_000
    initial_scale_power: int = 16
    loss_scale_window: int = 1000

    @property
    def cpu_offload(self) -> bool:
        return self.device != OffloadDeviceEnum.none

    @property
    def initial_loss_scale(self) -> float:
        return float(2**self.initial_scale_power)
