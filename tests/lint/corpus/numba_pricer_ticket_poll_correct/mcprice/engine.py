"""Queues pricing kernels and result copies on one CUDA stream; hands back tickets."""
import threading
import time
from dataclasses import dataclass, field
from typing import Any, List

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states

from .book import OptionBook
from .kernels import mc_european


@dataclass
class Ticket:
    host: np.ndarray                  # pinned payoff sums, filled by the copy
    scale: np.ndarray                 # exp(-rT) / number of paths, per option
    started: Any                      # cuda events (timing enabled)
    kernel_done: Any
    copied: Any                       # recorded after the copy: the results are on the host
    keepalive: List[Any] = field(default_factory=list)

    def done(self) -> bool:
        # not kernel_done: the copy of the sums is queued after it
        return self.copied.query()

    def kernel_ms(self) -> float:
        return cuda.event_elapsed_time(self.started, self.kernel_done)

    def result(self, poll_s: float = 50e-6, timeout_s: float = 5.0) -> List[float]:
        deadline = time.monotonic() + timeout_s
        while not self.done():
            if time.monotonic() > deadline:
                raise TimeoutError("pricing kernel did not finish in time")
            time.sleep(poll_s)
        return (self.host * self.scale).tolist()


class PricingEngine:
    def __init__(self, rate: float = 0.03, max_options: int = 4096, threads: int = 128,
                 paths_per_thread: int = 256, seed: int = 20240611):
        self.rate = rate
        self.threads = threads
        self.paths_per_thread = paths_per_thread
        self.max_options = max_options
        self.stream = cuda.stream()
        self.rng = create_xoroshiro128p_states(max_options * threads, seed=seed, stream=self.stream)
        self._lock = threading.Lock()       # request threads share the stream and the rng

    def submit(self, book: OptionBook) -> Ticket:
        n = len(book)
        if n > self.max_options:
            raise ValueError(f"{n} options > engine limit {self.max_options}")
        paths = self.threads * self.paths_per_thread
        scale = np.exp(-self.rate * book.expiry) / paths
        with self._lock:
            started = cuda.event(timing=True)
            started.record(self.stream)
            d_cols = {k: cuda.to_device(v, stream=self.stream) for k, v in book.columns().items()}
            d_sum = cuda.to_device(np.zeros(n, dtype=np.float64), stream=self.stream)
            mc_european[n, self.threads, self.stream](
                self.rng, d_cols["spot"], d_cols["strike"], d_cols["vol"], d_cols["expiry"],
                d_cols["is_call"], self.rate, self.paths_per_thread, d_sum)
            kernel_done = cuda.event(timing=True)
            kernel_done.record(self.stream)
            host = cuda.pinned_array(n, dtype=np.float64)
            d_sum.copy_to_host(host, stream=self.stream)
            copied = cuda.event(timing=False)
            copied.record(self.stream)
        return Ticket(host, scale, started, kernel_done, copied, keepalive=[d_cols, d_sum])
