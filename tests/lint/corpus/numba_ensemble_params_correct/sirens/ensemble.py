"""An ensemble of stochastic SIR runs, one numba stream per member so members overlap on
the GPU. All members read one device-resident rate table; when calibration publishes a new
table it is uploaded on a dedicated stream once the members' queued steps are done with the
old one, and every member waits for the upload before its next step."""

from typing import List

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states

from sirens.kernels import sir_step

THREADS = 128


class Ensemble:
    def __init__(self, init_state: np.ndarray, rates: np.ndarray, members: int, seed: int = 1):
        self.num_regions = init_state.shape[0]
        self.blocks = (self.num_regions + THREADS - 1) // THREADS
        self.streams: List[cuda.cudadrv.driver.Stream] = [cuda.stream() for _ in range(members)]
        self.upload = cuda.stream()
        self.states = [cuda.to_device(init_state.astype(np.float32), stream=s) for s in self.streams]
        self.rngs = [create_xoroshiro128p_states(self.num_regions, seed=seed + m, stream=s)
                     for m, s in enumerate(self.streams)]
        self.h_rates = cuda.pinned_array(rates.shape, dtype=np.float32)
        self.h_rates[:] = rates
        self.d_rates = cuda.to_device(self.h_rates, stream=self.upload)
        self.uploaded = cuda.event(timing=False)
        self.uploaded.record(stream=self.upload)
        for s in self.streams:
            self.uploaded.wait(stream=s)

    def step(self, dt: float) -> None:
        for m, s in enumerate(self.streams):
            sir_step[self.blocks, THREADS, s](self.states[m], self.d_rates, self.rngs[m], np.float32(dt))

    def set_rates(self, rates: np.ndarray) -> None:
        # the staging buffer may still be read by the previous upload
        self.uploaded.synchronize()
        self.h_rates[:] = rates
        for s in self.streams:
            released = cuda.event(timing=False)
            released.record(stream=s)
            released.wait(stream=self.upload)
        self.d_rates.copy_to_device(self.h_rates, stream=self.upload)
        self.uploaded.record(stream=self.upload)
        for s in self.streams:
            self.uploaded.wait(stream=s)

    def infected_quantiles(self, qs=(0.05, 0.5, 0.95)) -> np.ndarray:
        totals = np.empty(len(self.streams), dtype=np.float64)
        host = [cuda.pinned_array(st.shape, dtype=np.float32) for st in self.states]
        for m, s in enumerate(self.streams):
            self.states[m].copy_to_host(host[m], stream=s)
        for m, s in enumerate(self.streams):
            s.synchronize()
            totals[m] = host[m][:, 1].sum()
        return np.quantile(totals, qs)
