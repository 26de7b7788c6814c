"""Spill evicted KV blocks to host memory (and optionally disk) on a worker thread."""
import functools
import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional

import torch

from .device import current_accelerator, device_module, pin_host_buffer

logger = logging.getLogger(__name__)


class SpillingKVManager:

    def __init__(self, model, gpu_kv: torch.Tensor, num_host_blocks: int, spill_dir: Optional[str] = None):
        self.model = model
        self.gpu_kv = gpu_kv  # (num_blocks, 2, block_size, heads, head_dim)
        self.device = gpu_kv.device if gpu_kv.device.type != "cpu" else current_accelerator()
        self.mod = device_module(self.device)
        self.spill_stream = self.mod.Stream(device=self.device)
        self.load_stream = self.mod.Stream(device=self.device)
        self.host_pool = pin_host_buffer((num_host_blocks,) + tuple(gpu_kv.shape[1:]), gpu_kv.dtype)
        self.spill_dir = spill_dir
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-spill")
        self._lock = threading.Lock()
        self._inflight: Dict[int, Future] = {}
        self._step = 0

    # ------------------------------------------------------------ worker
    def _spill_blocks(self, block_ids: List[int], host_ids: List[int], out_path: Optional[str]) -> List[int]:
        with self.mod.stream(self.spill_stream):
            for b, h in zip(block_ids, host_ids):
                # expect: KVG001
                self.host_pool[h].copy_(self.gpu_kv[b], non_blocking=True)
        done = self.mod.Event()
        done.record(self.spill_stream)
        if out_path is not None:
            # expect: KVG003
            torch.save(self.host_pool[host_ids], out_path)
        done.synchronize()
        return block_ids

    # -------------------------------------------------------- main thread
    def step(self, input_ids, positions, block_tables, evict_block_ids, evict_host_ids):
        logits = self.model(input_ids, positions, self.gpu_kv, block_tables)
        next_tokens = torch.argmax(logits[:, -1], dim=-1)
        if evict_block_ids:
            self._submit_spill(evict_block_ids, evict_host_ids)
        token_ids = next_tokens.tolist()
        self._step += 1
        return token_ids

    def _submit_spill(self, block_ids, host_ids):
        out_path = None
        if self.spill_dir is not None:
            out_path = os.path.join(self.spill_dir, f"step{self._step}.pt")
        fut = self._executor.submit(functools.partial(self._spill_blocks, list(block_ids), list(host_ids), out_path))
        with self._lock:
            for h in host_ids:
                self._inflight[h] = fut

    def restore(self, host_ids: List[int], block_ids: List[int]) -> None:
        """Load spilled blocks back into (free) device blocks before the next step."""
        with self._lock:
            futures = {self._inflight.pop(h) for h in host_ids if h in self._inflight}
        for fut in futures:
            fut.result()
        compute = torch.accelerator.current_stream(self.device)
        self.load_stream.wait_stream(compute)
        with self.mod.stream(self.load_stream):
            for h, b in zip(host_ids, block_ids):
                self.gpu_kv[b].copy_(self.host_pool[h], non_blocking=True)
        compute.wait_stream(self.load_stream)

    def freed_blocks(self) -> List[int]:
        """Device blocks whose spill has landed and which the scheduler may reuse."""
        with self._lock:
            done = {f for f in self._inflight.values() if f.done()}
            self._inflight = {h: f for h, f in self._inflight.items() if f not in done}
        return [b for f in done for b in f.result()]

    def shutdown(self):
        self._executor.shutdown(wait=True)
