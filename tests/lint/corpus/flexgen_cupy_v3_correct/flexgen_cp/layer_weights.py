from typing import Dict

import cupy as cp
import numpy as np

from .cupy_backend import CupyDevice, copy_host_to_device, pinned_empty
from .policy import Policy

WEIGHT_NAMES = ("w_in", "b_in", "w_out", "b_out")


def weight_shapes(policy: Policy) -> Dict[str, tuple]:
    return {
        "w_in": (policy.hidden_size, policy.ffn_size),
        "b_in": (policy.ffn_size,),
        "w_out": (policy.ffn_size, policy.hidden_size),
        "b_out": (policy.hidden_size,),
    }


class HostLayerWeights:
    """Per-layer weights kept in page-locked host memory."""

    def __init__(self, policy: Policy, arrays: Dict[str, np.ndarray]):
        self.arrays = {}
        for name, shape in weight_shapes(policy).items():
            buf = pinned_empty(shape, policy.dtype)
            buf[...] = arrays[name]
            self.arrays[name] = buf


class DeviceWeightSlot:
    """One of the two GPU buffers a layer's weights are streamed into."""

    def __init__(self, policy: Policy, device: CupyDevice):
        self.arrays = {name: device.allocate(shape, policy.dtype) for name, shape in weight_shapes(policy).items()}

    def load_from(self, host: HostLayerWeights, stream: cp.cuda.Stream) -> None:
        for name in WEIGHT_NAMES:
            copy_host_to_device(self.arrays[name], host.arrays[name], stream)


def mlp_block(hidden: cp.ndarray, slot: DeviceWeightSlot, stream: cp.cuda.Stream) -> cp.ndarray:
    w = slot.arrays
    with stream:
        inner = cp.tanh(hidden @ w["w_in"] + w["b_in"])
        return hidden + inner @ w["w_out"] + w["b_out"]
