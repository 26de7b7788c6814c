import logging
import math

import cupy as cp
import cupyx
import numpy as np

from mctally.batch_copy import RegionGather
from mctally.constants import (
    CUDA_MEMCPY_DEVICE_TO_HOST,
    E_MAX_MEV,
    E_MIN_MEV,
    MEAN_ENERGY_MEV,
    N_ENERGY_BINS,
    N_REGIONS,
    PHOTONS_PER_BATCH,
)
from mctally.cudart import check, load_cudart

logger = logging.getLogger(__name__)


class PhotonTallyRunner:
    def __init__(self, n_regions: int = N_REGIONS, with_variance: bool = False, seed: int = 0):
        self.n_regions = n_regions
        self.with_variance = with_variance
        self.compute = cp.cuda.Stream(non_blocking=True)
        self.var_stream = cp.cuda.Stream(non_blocking=True)
        self.readback = cp.cuda.Stream(non_blocking=True)
        self.hist_done = cp.cuda.Event(disable_timing=True)
        self.var_done = cp.cuda.Event(disable_timing=True)
        self.read_done = cp.cuda.Event(disable_timing=True)
        with self.compute:
            self.rs = cp.random.RandomState(seed)
            self.d_hist = cp.zeros(N_ENERGY_BINS, dtype=cp.float64)
            self.d_sq_hist = cp.zeros(N_ENERGY_BINS, dtype=cp.float64)
            self.d_region_edep = [cp.zeros(1, dtype=cp.float64) for _ in range(n_regions)]
        self.compute.synchronize()
        self.h_hist = cupyx.zeros_pinned(N_ENERGY_BINS, dtype=np.float64)
        self.h_sq_hist = cupyx.zeros_pinned(N_ENERGY_BINS, dtype=np.float64)
        self.h_region = cupyx.zeros_pinned(n_regions, dtype=np.float64)
        self.rt = load_cudart()
        self.gather = RegionGather(cp.cuda.Device().id)
        self.n_photons = 0
        self._inflight = None

    def _simulate(self) -> None:
        log_min, dlog = math.log(E_MIN_MEV), math.log(E_MAX_MEV / E_MIN_MEV) / N_ENERGY_BINS
        with self.compute:
            energy = self.rs.exponential(MEAN_ENERGY_MEV, size=PHOTONS_PER_BATCH)
            region = self.rs.randint(0, self.n_regions, size=PHOTONS_PER_BATCH)
            deposited = energy * (1.0 - self.rs.random_sample(PHOTONS_PER_BATCH))
            bins = cp.clip(((cp.log(deposited) - log_min) / dlog).astype(cp.int32), 0, N_ENERGY_BINS - 1)
            self.d_hist += cp.bincount(bins, weights=deposited, minlength=N_ENERGY_BINS)
            per_region = cp.bincount(region, weights=deposited, minlength=self.n_regions)
            for r, edep in enumerate(self.d_region_edep):
                edep += per_region[r]
            self.hist_done.record(self.compute)
        if self.with_variance:
            self.var_stream.wait_event(self.hist_done)
            with self.var_stream:
                self.d_sq_hist += cp.bincount(bins, weights=deposited * deposited, minlength=N_ENERGY_BINS)
                self.var_done.record(self.var_stream)
        self._inflight = (bins, deposited, per_region)
        self.n_photons += PHOTONS_PER_BATCH

    def _read_back(self) -> None:
        rb = self.readback.ptr
        check(self.rt.cudaStreamWaitEvent(rb, self.hist_done.ptr, 0))
        check(self.rt.cudaMemcpyAsync(
            self.h_hist.ctypes.data, self.d_hist.data.ptr, self.d_hist.nbytes, CUDA_MEMCPY_DEVICE_TO_HOST, rb))
        if self.with_variance:
            # expect: KVG001
            check(self.rt.cudaMemcpyAsync(
                self.h_sq_hist.ctypes.data, self.d_sq_hist.data.ptr, self.d_sq_hist.nbytes, CUDA_MEMCPY_DEVICE_TO_HOST, rb))
        itemsize = self.h_region.itemsize
        dst = [self.h_region.ctypes.data + r * itemsize for r in range(self.n_regions)]
        src = [edep.data.ptr for edep in self.d_region_edep]
        self.gather.gather(dst, src, itemsize, rb)
        self.read_done.record(self.readback)

    def run_batch(self) -> float:
        self._simulate()
        self._read_back()
        self.read_done.synchronize()
        self._inflight = None
        mean = self.h_hist / self.n_photons
        rel_err = float("nan")
        if self.with_variance:
            var = np.maximum(self.h_sq_hist / self.n_photons - mean * mean, 0.0)
            peak = int(np.argmax(mean))
            rel_err = math.sqrt(var[peak] / self.n_photons) / max(mean[peak], 1e-300)
        logger.info("batch done: %d photons, total edep %.4g MeV", self.n_photons, float(self.h_region.sum()))
        return rel_err
