import dataclasses
import logging
import queue
import threading
from typing import Optional

import numpy as np

from .constants import COMPUTE_DTYPE, HOST_DTYPE, WORKER_POLL_TIMEOUT_S

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class AttentionJob:
    qkv_host: np.ndarray      # (3, b, d) pinned, filled by an async D2H copy
    kv_cache: np.ndarray      # (max_len, 2, b, d) host KV cache of one layer
    pos: int
    out_host: np.ndarray      # (b, d) pinned
    copied: Optional[object]  # cupy.cuda.Event recorded after the D2H copy
    done: threading.Event = dataclasses.field(default_factory=threading.Event)


class CpuAttentionWorker(threading.Thread):
    """Computes decode-step attention on the CPU over the host KV cache."""

    def __init__(self, num_heads: int):
        super().__init__(daemon=True, name="cpu-attention")
        self.num_heads = num_heads
        self._queue: "queue.Queue[Optional[AttentionJob]]" = queue.Queue()
        self._stopped = threading.Event()

    def submit(self, job: AttentionJob) -> None:
        self._queue.put(job)

    def shutdown(self) -> None:
        self._stopped.set()
        self._queue.put(None)

    def run(self) -> None:
        while not self._stopped.is_set():
            try:
                job = self._queue.get(timeout=WORKER_POLL_TIMEOUT_S)
            except queue.Empty:
                continue
            if job is None:
                break
            try:
                self._process(job)
            finally:
                job.done.set()

    def _process(self, job: AttentionJob) -> None:
        if job.copied is not None:
            job.copied.synchronize()
        q, k_new, v_new = job.qkv_host.astype(COMPUTE_DTYPE)
        job.kv_cache[job.pos, 0] = k_new.astype(HOST_DTYPE)
        job.kv_cache[job.pos, 1] = v_new.astype(HOST_DTYPE)

        length = job.pos + 1
        b, d = q.shape
        h, dh = self.num_heads, d // self.num_heads
        keys = job.kv_cache[:length, 0].astype(COMPUTE_DTYPE).reshape(length, b, h, dh)
        values = job.kv_cache[:length, 1].astype(COMPUTE_DTYPE).reshape(length, b, h, dh)
        scores = np.einsum("bhd,tbhd->bht", q.reshape(b, h, dh), keys) / np.sqrt(dh)
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        out = np.einsum("bht,tbhd->bhd", probs, values).reshape(b, d)
        job.out_host[...] = out.astype(HOST_DTYPE)
