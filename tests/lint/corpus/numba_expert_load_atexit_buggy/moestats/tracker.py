"""Hooks the routers, counts on the GPU, snapshots on a side stream."""
import atexit
import logging
import queue
import threading
from typing import Optional

import numpy as np
import torch
from numba import cuda

from .kernels import launch_bincount
from .sink import JsonlSink

logger = logging.getLogger(__name__)


class ExpertLoadTracker:
    def __init__(self, num_layers: int, num_experts: int, path: str = "expert_load.jsonl",
                 snapshot_every: int = 200):
        self.snapshot_every = snapshot_every
        self.counts = torch.zeros((num_layers, num_experts), dtype=torch.int64, device="cuda")
        self.host = cuda.pinned_array((num_layers, num_experts), dtype=np.int64)
        self.snap_stream = torch.cuda.Stream()
        self._snap_nb = cuda.external_stream(self.snap_stream.cuda_stream)
        self._snap_done = torch.cuda.Event()
        self._idle = threading.Event()       # set while the writer does not need self.host
        self._idle.set()
        self._jobs: "queue.Queue[Optional[int]]" = queue.Queue()
        self._sink = JsonlSink(path)
        self._writer = threading.Thread(target=self._write_loop, name="expert-load", daemon=True)
        self._writer.start()
        self._closed = False
        self._handles = []
        atexit.register(self.close)

    # -- model thread ------------------------------------------------------------------

    def attach(self, routers) -> None:
        """``routers``: one module per MoE layer whose forward returns (weights, expert_ids)."""
        for layer, router in enumerate(routers):
            self._handles.append(router.register_forward_hook(self._hook(layer)))

    def _hook(self, layer: int):
        def hook(module, inputs, output):
            _, expert_ids = output
            model_stream = cuda.external_stream(torch.cuda.current_stream().cuda_stream)
            launch_bincount(cuda.as_cuda_array(expert_ids.reshape(-1)),
                            cuda.as_cuda_array(self.counts[layer]), model_stream)
        return hook

    def on_step_end(self, step: int) -> None:
        if step % self.snapshot_every:
            return
        self._idle.wait()
        self._idle.clear()
        self.snap_stream.wait_stream(torch.cuda.current_stream())
        cuda.as_cuda_array(self.counts).copy_to_host(self.host, stream=self._snap_nb)
        self._snap_done.record(self.snap_stream)
        self._jobs.put(step)

    def close(self) -> None:
        """Writes the final totals. Safe to call twice (explicitly, then from atexit)."""
        if self._closed:
            return
        self._closed = True
        for handle in self._handles:
            handle.remove()
        self._jobs.put(None)
        self._writer.join()
        # expect: KVG001
        cuda.as_cuda_array(self.counts).copy_to_host(self.host, stream=self._snap_nb)
        self.snap_stream.synchronize()
        self._sink.write(-1, self.host, final=True)
        self._sink.close()

    # -- writer thread -----------------------------------------------------------------

    def _write_loop(self) -> None:
        while True:
            step = self._jobs.get()
            if step is None:
                return
            try:
                self._snap_done.synchronize()
                self._sink.write(step, self.host)
            except Exception:
                logger.exception("expert load snapshot %d failed", step)
            finally:
                self._idle.set()
