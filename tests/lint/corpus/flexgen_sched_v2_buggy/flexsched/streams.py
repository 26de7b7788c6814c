from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, List

import torch


class MultiStreamRunner:
    """Runs copy functions on a small ring of CUDA streams from worker threads."""

    def __init__(self, size: int):
        self.size = size
        self.streams = [torch.cuda.Stream() for _ in range(size)]
        self.executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="flex-copy")
        self.execute_idx = 0
        self._pending: List[Future] = []

    def run(self, need_sync: bool, func: Callable, *args) -> Future:
        use_stream = self.streams[self.execute_idx]
        self.execute_idx = (self.execute_idx + 1) % self.size

        def _run_func():
            with torch.cuda.stream(use_stream):
                func(*args)
            if need_sync:
                use_stream.synchronize()

        fut = self.executor.submit(_run_func)
        self._pending.append(fut)
        return fut

    def wait_all(self) -> None:
        for fut in self._pending:
            fut.result()
        self._pending.clear()
        for s in self.streams:
            s.synchronize()

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)
