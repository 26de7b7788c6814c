from dataclasses import dataclass

import numpy as np
from numba import cuda

from rowscore.config import THREADS_PER_BLOCK, ScoringConfig, SyncMode
from rowscore.device_ctx import DeviceContextRegistry
from rowscore.kernels import row_score_kernel


@dataclass
class Batch:
    batch_id: int
    values: np.ndarray


@dataclass
class BatchScores:
    batch_id: int
    scores: np.ndarray


class BatchWorker:
    def __init__(self, cfg: ScoringConfig, registry: DeviceContextRegistry):
        self._cfg = cfg
        self._registry = registry

    def _wait(self, ctx) -> None:
        if self._cfg.sync_mode is SyncMode.EVENT:
            ctx.done.record(ctx.stream)
            ctx.done.wait()
        else:
            ctx.stream.synchronize()

    def run(self, batch: Batch) -> BatchScores:
        ctx = self._registry.get()
        stream = ctx.stream
        rows = batch.values.shape[0]
        d_values = cuda.to_device(batch.values, stream=stream)
        d_out = cuda.device_array(rows, dtype=np.float32, stream=stream)
        blocks = (rows + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        row_score_kernel[blocks, THREADS_PER_BLOCK, stream](d_values, ctx.d_weights, self._cfg.clip, d_out)
        host_out = cuda.pinned_array(rows, dtype=np.float32)
        d_out.copy_to_host(host_out, stream=stream)
        self._wait(ctx)
        return BatchScores(batch.batch_id, host_out)
