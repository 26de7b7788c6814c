from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

import torch


class StreamPool:
    """Round-robin side streams, each driven from a worker thread of a shared executor."""

    def __init__(self, size: int, device: torch.device) -> None:
        self.size = size
        self.device = device
        self.streams = [torch.cuda.Stream(device=device) for _ in range(size)]
        self.executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="flex-io")
        self.execute_idx = 0

    def _next_stream(self) -> torch.cuda.Stream:
        stream = self.streams[self.execute_idx]
        self.execute_idx = (self.execute_idx + 1) % self.size
        return stream

    def submit(self, func: Callable[..., Any], *args: Any, need_sync: bool = True) -> Future:
        use_stream = self._next_stream()

        def _run_func() -> Any:
            use_stream.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(use_stream):
                out = func(*args)
            if need_sync:
                use_stream.synchronize()
            return out

        return self.executor.submit(_run_func)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)
