"""Encodes a corpus batch by batch and streams L2-normalised vectors to shard files.

Encoding and normalisation run on the default stream; each batch's vectors come down on a
non-blocking cupy stream into a pinned shard buffer, so the next batch encodes meanwhile."""

import queue
from typing import Iterable, Tuple

import cupy
import numpy as np
import torch

from .encoder import TorchEncoder
from .shards import ShardWriter, make_buffers


class IndexBuilder:
    def __init__(self, encoder: TorchEncoder, out_dir: str, batch_rows: int, dim: int, depth: int = 3):
        self.encoder = encoder
        self.d2h = cupy.cuda.Stream(non_blocking=True)
        self.free: "queue.Queue" = queue.Queue()
        for buf in make_buffers(depth, batch_rows, dim):
            self.free.put(buf)
        self.ready: "queue.Queue" = queue.Queue()
        self.writer = ShardWriter(out_dir, self.ready, self.free)
        self.writer.start()

    def _emit(self, vectors: cupy.ndarray, ids: np.ndarray, shard_no: int) -> None:
        rows = vectors.shape[0]
        buf = self.free.get()
        buf.ids[:rows] = ids
        # order the download behind the normalisation queued on the default stream
        self.d2h.wait_event(cupy.cuda.get_current_stream().record())
        vectors.get(stream=self.d2h, out=buf.vectors[:rows], blocking=False)
        buf.keepalive = vectors
        # hand the buffer to the writer only once the download has landed (runs on a
        # driver thread, in stream order; queue.put makes no CUDA call)
        self.d2h.launch_host_func(self.ready.put, (buf, rows, shard_no))

    def build(self, batches: Iterable[Tuple[np.ndarray, torch.Tensor, torch.Tensor]]) -> int:
        shard_no = 0
        for ids, input_ids, attention_mask in batches:
            vectors = self.encoder.encode(input_ids, attention_mask)
            vectors /= cupy.linalg.norm(vectors, axis=1, keepdims=True) + 1e-12
            self._emit(vectors, ids, shard_no)
            shard_no += 1
        self.d2h.launch_host_func(self.ready.put, None)
        self.writer.join()
        return shard_no
