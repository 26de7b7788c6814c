import dataclasses
import logging
import queue
import threading
from typing import List, Optional, Tuple

import cupy
import numpy as np

from .policy import CPU_COMPUTE_DTYPE, Policy

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class AttentionJob:
    layer_idx: int
    pos: int
    qkv_host: np.ndarray
    copy_done: cupy.cuda.Event


class CpuAttentionWorker(threading.Thread):
    """Runs decode attention over the host-resident KV cache, one job at a time."""

    def __init__(self, policy: Policy, kv_home: List[Tuple[np.ndarray, np.ndarray]]):
        super().__init__(name="cpu-attention", daemon=True)
        self.policy = policy
        self.kv_home = kv_home
        self.jobs: "queue.Queue[Optional[AttentionJob]]" = queue.Queue()
        self.results: "queue.Queue[Tuple[int, np.ndarray]]" = queue.Queue()

    def submit(self, job: AttentionJob) -> None:
        self.jobs.put(job)

    def stop(self) -> None:
        self.jobs.put(None)

    def run(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                break
            try:
                self.results.put((job.layer_idx, self._attend(job)))
            except Exception:
                logger.exception("cpu attention failed for layer %d", job.layer_idx)
                self.results.put((job.layer_idx, None))

    def _attend(self, job: AttentionJob) -> np.ndarray:
        # expect: KVG003
        qkv = job.qkv_host.astype(CPU_COMPUTE_DTYPE)
        q, k_new, v_new = qkv[0], qkv[1], qkv[2]
        k_home, v_home = self.kv_home[job.layer_idx]
        k_home[job.pos] = k_new
        v_home[job.pos] = v_new
        keys = k_home[: job.pos + 1].astype(CPU_COMPUTE_DTYPE)
        values = v_home[: job.pos + 1].astype(CPU_COMPUTE_DTYPE)

        # q: (b, n, d), keys/values: (s, b, n, d)
        scores = np.einsum("bnd,sbnd->bns", q, keys) / np.sqrt(self.policy.head_dim)
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        out = np.einsum("bns,sbnd->bnd", probs, values)
        return out.reshape(out.shape[0], -1)
