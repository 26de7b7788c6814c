import logging

import torch

from simple_kv_offload.constants import DEFAULT_NUM_CPU_BLOCKS
from simple_kv_offload.copy_backend import DmaCopyBackend, DmaCopyEvent

logger = logging.getLogger(__name__)


class SimpleCPUOffloadWorker:
    def __init__(self, device: torch.device, num_cpu_blocks: int = DEFAULT_NUM_CPU_BLOCKS):
        self.device = device
        self.num_cpu_blocks = num_cpu_blocks
        self.load_stream = torch.cuda.Stream(device=device)
        self.store_stream = torch.cuda.Stream(device=device)
        self.backend = DmaCopyBackend()
        self.gpu_kv_caches: dict[str, torch.Tensor] = {}
        self.cpu_kv_caches: dict[str, torch.Tensor] = {}
        self._events: list[DmaCopyEvent] = []
        self._next_event_idx = 0
        self._pending: dict[int, str] = {}

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        for name, cache in kv_caches.items():
            gpu_view = cache.view(torch.int8).view(cache.shape[0], -1)
            self.gpu_kv_caches[name] = gpu_view
            self.cpu_kv_caches[name] = torch.empty(
                (self.num_cpu_blocks, gpu_view.shape[1]), dtype=torch.int8,
                device="cpu", pin_memory=True,
            )
        self.backend.init(self.gpu_kv_caches, self.cpu_kv_caches, self.device,
                          self.load_stream, self.store_stream)

    def _next_idx(self, req_id: str) -> int:
        idx = self._next_event_idx
        self._next_event_idx += 1
        self._pending[idx] = req_id
        return idx

    def start_store(self, req_id: str, gpu_blocks: list[int], cpu_blocks: list[int]) -> None:
        compute_done = torch.Event()
        compute_done.record(torch.cuda.current_stream())
        self.backend.launch_copy(gpu_blocks, cpu_blocks, True, self._next_idx(req_id),
                                 self._events, wait_event=compute_done)

    def start_load(self, req_id: str, cpu_blocks: list[int], gpu_blocks: list[int]) -> None:
        compute_done = torch.Event()
        compute_done.record(torch.cuda.current_stream())
        self.backend.launch_copy(cpu_blocks, gpu_blocks, False, self._next_idx(req_id),
                                 self._events, wait_event=compute_done)

    def get_finished(self) -> set[str]:
        done: set[str] = set()
        remaining = []
        for ev in list(self._events):
            if ev.end_event.query():
                done.add(self._pending.pop(ev.event_idx))
            else:
                remaining.append(ev)
        self._events[:] = remaining
        return done

    def shutdown(self) -> None:
        self.backend.shutdown()
