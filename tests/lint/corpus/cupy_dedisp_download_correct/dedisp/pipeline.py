import logging
from typing import Any, Callable

import cupy as cp
import numpy as np

from .config import DedispConfig
from .downloader import Chunk, Downloader
from .kernels import dedisperse_kernel

logger = logging.getLogger(__name__)


class DedispersionPipeline:
    def __init__(self, cfg: DedispConfig, delays: np.ndarray,
                 sink: Callable[[int, np.ndarray], Any]):
        self.cfg = cfg
        self.compute = cp.cuda.Stream(non_blocking=True)
        with self.compute:
            self.d_delays = cp.asarray(delays, dtype=cp.int32)
            self.d_in = cp.empty((cfg.nchan, cfg.nsamp), dtype=cp.float32)
            self.d_out = [cp.empty((cfg.ndm, cfg.nsamp_out), dtype=cp.float32)
                          for _ in range(cfg.nslots)]
        self.downloader = Downloader((cfg.ndm, cfg.nsamp_out), cfg.nslots, sink)
        self.downloader.start()
        self._seq = 0

    def process(self, block: np.ndarray) -> int:
        """Queue one filterbank block; returns its sequence number."""
        cfg = self.cfg
        slot = self.downloader.free.get()     # blocks while every slot is being downloaded
        out = self.d_out[slot]
        grid = ((cfg.nsamp_out + cfg.threads_per_block - 1) // cfg.threads_per_block, cfg.ndm)
        with self.compute:
            self.d_in.set(block)
            dedisperse_kernel(grid, (cfg.threads_per_block,),
                              (self.d_in, self.d_delays, out, np.int32(cfg.nchan),
                               np.int32(cfg.nsamp), np.int32(cfg.nsamp_out)))
            ready = self.compute.record()
        seq = self._seq
        self._seq += 1
        self.downloader.submit(Chunk(seq, slot, out, ready))
        return seq

    def close(self) -> None:
        self.downloader.close()
        self.compute.synchronize()
