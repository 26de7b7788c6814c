"""Runs I/O jobs on worker threads, each job bound to one stream of a small round-robin pool
(the shape of dynagen's CacheLoaderManager / MultiStreamBase)."""

from concurrent.futures import Future, ThreadPoolExecutor

import torch


class StreamExecutor:
    def __init__(self, size: int):
        self.size = size
        self.streams = [torch.cuda.Stream() for _ in range(size)]
        self.executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="kv-store")
        self.execute_idx = 0

    def submit(self, func, *args) -> Future:
        use_stream = self.streams[self.execute_idx]
        self.execute_idx = (self.execute_idx + 1) % self.size

        def _run_func():
            torch.cuda.set_stream(use_stream)
            func(*args)
            use_stream.synchronize()

        return self.executor.submit(_run_func)

    def shutdown(self):
        self.executor.shutdown(wait=True)
