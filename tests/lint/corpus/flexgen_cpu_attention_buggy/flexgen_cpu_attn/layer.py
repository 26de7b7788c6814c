import logging
from typing import Dict, List, Tuple

import cupy
import numpy as np

from .cpu_worker import AttentionJob, CpuAttentionWorker
from .cupy_backend import fetch_to_host, pinned_empty, pinned_zeros
from .policy import DEVICE_DTYPE, Policy

logger = logging.getLogger(__name__)


class SelfAttentionCpuCache:
    """
    Decoder self-attention whose KV cache lives in pinned host memory. Projections run on the
    GPU; the fused q/k/v of the new token are copied to the host and attention runs on the CPU.
    """

    def __init__(self, policy: Policy, weights: List[Dict[str, cupy.ndarray]]):
        self.policy = policy
        self.weights = weights
        self.num_layers = len(weights)
        b, n, d = policy.gpu_batch_size, policy.num_heads, policy.head_dim

        self.compute_stream = cupy.cuda.Stream(non_blocking=True)
        self.copy_stream = cupy.cuda.Stream(non_blocking=True)

        self.kv_home: List[Tuple[np.ndarray, np.ndarray]] = [
            (pinned_zeros((policy.max_seq_len, b, n, d), DEVICE_DTYPE),
             pinned_zeros((policy.max_seq_len, b, n, d), DEVICE_DTYPE))
            for _ in range(self.num_layers)
        ]
        self.qkv_host = pinned_empty((3, b, n, d), DEVICE_DTYPE)
        self.worker = CpuAttentionWorker(policy, self.kv_home)
        self.worker.start()

    def forward_layer(self, hidden: cupy.ndarray, layer_idx: int, pos: int) -> cupy.ndarray:
        w = self.weights[layer_idx]
        b, n, d = self.policy.gpu_batch_size, self.policy.num_heads, self.policy.head_dim
        with self.compute_stream:
            qkv = (hidden @ w["w_qkv"]).reshape(b, 3, n, d).transpose(1, 0, 2, 3)
            qkv = cupy.ascontiguousarray(qkv)
            produced = self.compute_stream.record()

        self.copy_stream.wait_event(produced)
        fetch_to_host(qkv, self.qkv_host, self.copy_stream)
        copy_done = self.copy_stream.record()
        self.worker.submit(AttentionJob(layer_idx, pos, self.qkv_host, copy_done))

        got_layer, attn_out = self.worker.results.get()
        if attn_out is None or got_layer != layer_idx:
            raise RuntimeError(f"cpu attention returned no result for layer {layer_idx}")

        with self.compute_stream:
            attn_dev = cupy.asarray(attn_out.astype(DEVICE_DTYPE))
            return hidden + attn_dev @ w["w_out"]

    def decode_step(self, hidden: cupy.ndarray, pos: int) -> cupy.ndarray:
        for layer_idx in range(self.num_layers):
            hidden = self.forward_layer(hidden, layer_idx, pos)
        self.compute_stream.synchronize()
        return hidden

    def close(self) -> None:
        self.worker.stop()
        self.worker.join()
