"""The swap worker: one thread, one CUDA stream; requests run in submission order."""

import queue
from concurrent.futures import ThreadPoolExecutor
from typing import List

import torch

from swap_tier.swap_request import SwapKind, SwapRequest


class SwapWorker:

    def __init__(self, gpu_caches: List[torch.Tensor], cpu_caches: List[torch.Tensor],
                 device: torch.device):
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.device = device
        self.swap_stream = torch.cuda.Stream(device=device)
        self.completed: "queue.SimpleQueue[SwapRequest]" = queue.SimpleQueue()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-swap")

    def submit(self, request: SwapRequest) -> None:
        self._pool.submit(self._execute, request)

    def _execute(self, request: SwapRequest) -> None:
        torch.cuda.set_device(self.device)
        # nothing may touch the blocks before the runner's work up to the hand-over is done
        request.ready.wait()
        with torch.cuda.stream(self.swap_stream):
            for gpu, cpu in zip(self.gpu_caches, self.cpu_caches):
                for g, c in zip(request.gpu_blocks, request.cpu_blocks):
                    if request.kind is SwapKind.OUT:
                        # expect: KVG001
                        cpu[c].copy_(gpu[g], non_blocking=True)
                    else:
                        # expect: KVG004
                        gpu[g].copy_(cpu[c], non_blocking=True)
            request.done = torch.cuda.Event()
            request.done.record()
        self.completed.put(request)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
