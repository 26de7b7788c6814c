"""Preemption by swapping: a request that loses its pages is swapped out and later in."""
from typing import Dict, List

from .swapper import PageSwapper


class SwapScheduler:
    def __init__(self, swapper: PageSwapper, num_host_pages: int):
        self.swapper = swapper
        self.free_host = list(range(num_host_pages))
        self.swapped: Dict[str, List[int]] = {}

    def preempt(self, req_id: str, dev_pages: List[int]) -> List[int]:
        host = [self.free_host.pop() for _ in dev_pages]
        self.swapper.swap_out(list(zip(dev_pages, host)))
        self.swapped[req_id] = host
        return dev_pages

    def resume(self, req_id: str, dev_pages: List[int]) -> None:
        host = self.swapped.pop(req_id)
        # swap-ins read the host pages out of stream order: the swap-out that filled
        # them must have landed first
        self.swapper.wait()
        self.swapper.swap_in(list(zip(host, dev_pages)))
        self.swapper.wait()
        self.free_host.extend(host)
