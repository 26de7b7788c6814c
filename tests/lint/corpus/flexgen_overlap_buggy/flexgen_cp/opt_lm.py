import logging
from typing import Dict, List

import cupy
import numpy as np

from .kv_spill import KVSpiller
from .policy import Policy
from .streams import StreamSet
from .weights import WeightHome

logger = logging.getLogger(__name__)


class SelfAttention:
    has_kv = True

    def __init__(self, num_heads: int):
        self.num_heads = num_heads

    def forward(self, hidden: cupy.ndarray, w: Dict[str, cupy.ndarray]):
        qkv = hidden @ w["qkv"]
        q, k, v = cupy.split(qkv, 3, axis=-1)
        scores = (q @ k.swapaxes(-1, -2)) / np.sqrt(q.shape[-1] // self.num_heads)
        probs = cupy.exp(scores - scores.max(axis=-1, keepdims=True))
        probs /= probs.sum(axis=-1, keepdims=True)
        return hidden + (probs @ v) @ w["out"], cupy.ascontiguousarray(k), cupy.ascontiguousarray(v)


class MLP:
    has_kv = False

    def forward(self, hidden: cupy.ndarray, w: Dict[str, cupy.ndarray]):
        return hidden + cupy.maximum(hidden @ w["fc1"], 0) @ w["fc2"], None, None


class OptLM:

    def __init__(self, num_layers: int, num_heads: int, host_weights: List[Dict[str, np.ndarray]],
                 policy: Policy, kv_shape: tuple):
        self.policy = policy
        self.layers = []
        for _ in range(num_layers):
            self.layers.append(SelfAttention(num_heads))
            if policy.sep_layer:
                self.layers.append(MLP())
        self.streams = StreamSet()
        self.weight_home = WeightHome(host_weights)
        self.spiller = KVSpiller(policy.spill_dir, kv_shape, np.float16, policy.spill_buffers)

    def compute_layer(self, j: int, hidden: cupy.ndarray):
        weights = self.weight_home.get(j, self.streams)
        with self.streams.compute:
            hidden, k, v = self.layers[j].forward(hidden, weights)
            computed = self.streams.compute.record()
        return hidden, k, v, computed

    def generation_loop_overlap_single_batch(self, hidden: cupy.ndarray, gen_len: int) -> cupy.ndarray:
        num_layers = len(self.layers)
        for step in range(gen_len):
            self.weight_home.load(0, self.streams)
            self.streams.sync()
            for j in range(num_layers):
                if j + 1 < num_layers:
                    self.weight_home.load(j + 1, self.streams)
                hidden, k, v, computed = self.compute_layer(j, hidden)
                if self.layers[j].has_kv and self.policy.cache_disk_percent > 0:
                    self.spiller.store(j, step, k, v, computed, self.streams)
                self.streams.sync()
            logger.debug(f"finished decode step {step}")
        self.spiller.flush()
        return hidden
