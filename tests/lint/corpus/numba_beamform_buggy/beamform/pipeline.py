import logging
import queue

import numpy as np
from numba import cuda

from . import kernels
from .egress import EgressWriter
from .params import PipelineParams

logger = logging.getLogger(__name__)


class BeamPipeline:

    def __init__(self, params: PipelineParams, weights: np.ndarray,
                 gains: np.ndarray, out_path: str):
        self.params = params
        self._compute = cuda.stream()
        self._egress = cuda.stream()
        self._d_weights = cuda.to_device(weights, stream=self._compute)
        self._d_gains = cuda.to_device(gains, stream=self._compute)
        self._d_out = cuda.device_array((params.n_beams, params.n_samples),
                                        dtype=params.dtype,
                                        stream=self._compute)
        self._h_in = cuda.pinned_array((params.n_channels, params.n_samples),
                                       dtype=params.dtype)
        self._d_in = cuda.device_array_like(self._h_in, stream=self._compute)
        self._in_free = cuda.event(timing=False)
        self._in_free.record(self._compute)
        self._out_free = cuda.event(timing=False)
        self._out_free.record(self._egress)
        free: "queue.Queue[np.ndarray]" = queue.Queue()
        for _ in range(params.n_host_buffers):
            free.put(
                cuda.pinned_array((params.n_beams, params.n_samples),
                                  dtype=params.dtype))
        self._free = free
        self._writer = EgressWriter(out_path, free)
        self._seq = 0

    def process(self, block: np.ndarray) -> None:
        p = self.params
        self._in_free.synchronize()
        self._h_in[...] = block
        self._d_in.copy_to_device(self._h_in, stream=self._compute)
        self._in_free.record(self._compute)

        self._out_free.wait(self._compute)
        kernels.beam_sum[p.grid, p.threads_per_block,
                         self._compute](self._d_in, self._d_weights, self._d_out)
        ready = cuda.event(timing=False)
        ready.record(self._compute)
        if p.normalize:
            kernels.scale_rows[p.grid, p.threads_per_block,
                               self._compute](self._d_out, self._d_gains)

        host_block = self._free.get()
        ready.wait(self._egress)
        # expect: KVG001
        self._d_out.copy_to_host(host_block, stream=self._egress)
        self._out_free.record(self._egress)
        self._egress.add_callback(self._writer.on_landed,
                                  (self._seq, host_block))
        self._seq += 1

    def close(self) -> None:
        self._egress.synchronize()
        self._writer.close()
        logger.info("beam pipeline processed %d blocks", self._seq)
