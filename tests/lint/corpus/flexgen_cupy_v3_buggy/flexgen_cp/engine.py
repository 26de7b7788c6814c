import logging
from typing import List

import cupy as cp
import numpy as np

from .cupy_backend import CupyDevice, copy_device_to_host, copy_host_to_device, pinned_empty
from .layer_weights import DeviceWeightSlot, HostLayerWeights, mlp_block
from .policy import Policy

logger = logging.getLogger(__name__)


class OffloadedGenerationEngine:
    """
    Overlaps three streams: weights for the next layer are loaded while the current layer
    computes, and each token's output hidden state is stored back to host memory.
    """

    def __init__(self, policy: Policy, layers: List[HostLayerWeights]):
        self.policy = policy
        self.layers = layers
        self.num_layers = len(layers)
        self.dev = CupyDevice(policy.device_id)
        self.slots = [DeviceWeightSlot(policy, self.dev) for _ in range(2)]
        self.weight_ready = [self.dev.new_event() for _ in range(2)]
        self.slot_released = [self.dev.new_event() for _ in range(2)]
        self._loads_issued = 0

    def load_weight(self, layer_idx: int) -> int:
        slot = self._loads_issued % 2
        if layer_idx != 0:
            self.dev.load_stream.wait_event(self.slot_released[slot])
        self.slots[slot].load_from(self.layers[layer_idx], self.dev.load_stream)
        self.weight_ready[slot].record(self.dev.load_stream)
        self._loads_issued += 1
        return slot

    def compute_layer(self, hidden: cp.ndarray, slot: int) -> cp.ndarray:
        self.dev.compute_stream.wait_event(self.weight_ready[slot])
        out = mlp_block(hidden, self.slots[slot], self.dev.compute_stream)
        self.slot_released[slot].record(self.dev.compute_stream)
        return out

    def store_hidden(self, out_host: np.ndarray, hidden: cp.ndarray) -> None:
        produced = self.dev.new_event()
        produced.record(self.dev.compute_stream)
        self.dev.store_stream.wait_event(produced)
        copy_device_to_host(out_host, hidden, self.dev.store_stream)

    def generate(self, init_hidden: np.ndarray, gen_len: int) -> np.ndarray:
        outputs = pinned_empty((gen_len,) + self.policy.hidden_shape, self.policy.dtype)
        hidden = self.dev.allocate(self.policy.hidden_shape, self.policy.dtype)
        copy_host_to_device(hidden, init_hidden, self.dev.compute_stream)
        keep_alive = []

        pending = [self.load_weight(0)]
        for i in range(gen_len):
            for j in range(self.num_layers):
                nxt = (j + 1) % self.num_layers
                if i < gen_len - 1 or nxt != 0:
                    pending.append(self.load_weight(nxt))
                hidden = self.compute_layer(hidden, pending.pop(0))
            self.store_hidden(outputs[i], hidden)
            keep_alive.append(hidden)

        self.dev.store_stream.synchronize()
        logger.info("generated %d steps over %d offloaded layers", gen_len, self.num_layers)
        return outputs
