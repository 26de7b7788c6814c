import logging
from typing import Callable, Dict, List, Optional, Sequence

import torch

from cpu_offload import cudart

logger = logging.getLogger(__name__)


class BlockLoader:
    def __init__(
        self,
        gpu_caches: Dict[str, torch.Tensor],
        cpu_caches: Dict[str, torch.Tensor],
        block_bytes: int,
        before_issue: Optional[Callable[[object], None]] = None,
    ):
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.block_bytes = block_bytes
        self.stream = cudart.stream_create()
        self._before_issue = before_issue
        self._pending: List[tuple] = []

    def load_blocks(self, req_id: str, cpu_block_ids: Sequence[int], gpu_block_ids: Sequence[int]):
        if self._before_issue is not None:
            self._before_issue(self.stream)
        for name, gpu_t in self.gpu_caches.items():
            cpu_base = self.cpu_caches[name].data_ptr()
            gpu_base = gpu_t.data_ptr()
            for cpu_id, gpu_id in zip(cpu_block_ids, gpu_block_ids):
                cudart.memcpy_h2d_async(gpu_base + gpu_id * self.block_bytes, cpu_base + cpu_id * self.block_bytes, self.block_bytes, self.stream)
        done = cudart.event_create()
        cudart.event_record(done, self.stream)
        self._pending.append((req_id, done))

    def poll(self) -> List[str]:
        finished = [r for r, ev in self._pending if cudart.event_query(ev)]
        self._pending = [(r, ev) for r, ev in self._pending if r not in finished]
        return finished
