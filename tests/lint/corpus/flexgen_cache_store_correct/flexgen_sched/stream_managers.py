import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, List, Optional

import torch

logger = logging.getLogger(__name__)


class CacheStoreManager:
    """Runs cache stores on a rotating set of CUDA streams from worker threads."""

    def __init__(self, size: int):
        self.size = size
        self.streams: List[torch.cuda.Stream] = [torch.cuda.Stream() for _ in range(size)]
        self.executors = ThreadPoolExecutor(max_workers=size, thread_name_prefix="cache-store")
        self.execute_idx = 0

    def submit(self, func: Callable, *args, after: Optional[torch.cuda.Event] = None) -> Future:
        use_stream = self.streams[self.execute_idx]
        self.execute_idx = (self.execute_idx + 1) % self.size

        def _run_func():
            with torch.cuda.stream(use_stream):
                if after is not None:
                    use_stream.wait_event(after)
                func(*args)
            use_stream.synchronize()

        return self.executors.submit(_run_func)

    def shutdown(self) -> None:
        self.executors.shutdown(wait=True)
