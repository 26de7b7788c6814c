# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass
from enum import Enum


class OffloadDeviceEnum(str, Enum):
    none = "none"
    cpu = "cpu"
    nvme = "nvme"


class OffloadStateTypeEnum(str, Enum):
    optim_states = "optim_states"
    hp_params = "hp_params"
    lp_params = "lp_params"
    lp_grads = "lp_grads"


@dataclass
class OffloadStatesConfig:
    # copy on a dedicated stream so that the caller can keep queueing work meanwhile
    overlap_comm: bool = True
    pin_memory: bool = True
