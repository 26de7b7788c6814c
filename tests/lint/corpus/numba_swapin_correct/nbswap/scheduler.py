import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numba import cuda

from .constants import BLOCK_SIZE, LEN_DTYPE, SWAP_WORKERS, THREADS
from .copy_ops import read_lengths, swap_in_blocks
from .kernels import append_token, bump_lengths
from .pools import DeviceBlockPool, HostBlockPool

logger = logging.getLogger(__name__)


@dataclass
class SwapConfig:
    num_device_blocks: int
    num_host_slots: int
    hidden_size: int
    max_seqs: int = 256


class SwapScheduler:
    def __init__(self, cfg: SwapConfig) -> None:
        elems = BLOCK_SIZE * cfg.hidden_size
        self.compute = cuda.stream()
        self.swap_stream = cuda.stream()
        self.device_pool = DeviceBlockPool(cfg.num_device_blocks, elems)
        self.host_pool = HostBlockPool(cfg.num_host_slots, elems)
        self.d_seq_lens = cuda.to_device(np.zeros(cfg.max_seqs, dtype=LEN_DTYPE))
        self.h_seq_lens = cuda.pinned_array(cfg.max_seqs, dtype=LEN_DTYPE)
        self.swapped: dict[int, list[int]] = {}
        self.ready: set[int] = set()
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(
            max_workers=SWAP_WORKERS, thread_name_prefix="swap-in")

    def decode_step(self, active: np.ndarray, d_block_table, d_values) -> None:
        d_active = cuda.to_device(active, stream=self.compute)
        append_token[active.shape[0], THREADS, self.compute](
            self.device_pool.cache, d_block_table, self.d_seq_lens,
            d_active, d_values)
        nblk = (active.shape[0] + THREADS - 1) // THREADS
        bump_lengths[nblk, THREADS, self.compute](self.d_seq_lens, d_active, 1)

    def finish(self, seq_id: int, blocks: list[int]) -> None:
        released = cuda.event(timing=False)
        released.record(stream=self.compute)
        self.device_pool.free(blocks, released)

    def mark_swapped(self, seq_id: int, slots: list[int]) -> None:
        self.swapped[seq_id] = slots

    def swap_in(self, seq_id: int) -> list[int]:
        slots = self.swapped.pop(seq_id)
        blocks, released = self.device_pool.allocate(len(slots))
        fut = self._executor.submit(
            self._swap_job, seq_id, blocks, slots, released)
        fut.add_done_callback(self._on_swapped)
        return blocks

    def _swap_job(self, seq_id: int, blocks: list[int], slots: list[int],
                  released: list) -> int:
        for evt in released:
            evt.wait(stream=self.swap_stream)
        swap_in_blocks(self.device_pool.cache, blocks,
                       self.host_pool.cache, slots, self.swap_stream)
        done = cuda.event(timing=False)
        done.record(stream=self.swap_stream)
        done.synchronize()
        self.host_pool.give_back(slots)
        return seq_id

    def _on_swapped(self, fut: Future) -> None:
        try:
            seq_id = fut.result()
        except Exception:
            logger.exception("swap-in failed")
            return
        with self._lock:
            self.ready.add(seq_id)

    def longest_sequence(self, n: int) -> int:
        read_lengths(self.d_seq_lens[:n], self.h_seq_lens[:n], self.compute)
        self.compute.synchronize()
        return int(self.h_seq_lens[:n].max())
