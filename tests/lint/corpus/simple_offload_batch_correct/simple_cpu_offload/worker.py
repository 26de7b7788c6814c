# SPDX-License-Identifier: Apache-2.0
import logging
from dataclasses import dataclass, field

import torch

from simple_cpu_offload.constants import COPY_STREAM_PRIORITY
from simple_cpu_offload.copy_engine import BlockCopyEngine
from simple_cpu_offload.dma import check_driver

logger = logging.getLogger(__name__)


@dataclass
class SimpleCPUOffloadMetadata:
    # req_id -> (cpu block ids, gpu block ids)
    reqs_to_load: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
    # req_id -> (gpu block ids, cpu block ids)
    reqs_to_store: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)


class SimpleCPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int, device_id: int = 0):
        check_driver()
        self.num_cpu_blocks = num_cpu_blocks
        self.device_id = device_id
        self.store_stream = torch.cuda.Stream(priority=COPY_STREAM_PRIORITY)
        self.load_stream = torch.cuda.Stream(priority=COPY_STREAM_PRIORITY)
        self.engine: BlockCopyEngine | None = None
        self._pending_stores: dict[str, tuple[torch.cuda.Event, set[int]]] = {}
        self._pending_loads: dict[str, torch.cuda.Event] = {}

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        cpu_caches = {
            name: torch.empty((self.num_cpu_blocks, *t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for name, t in kv_caches.items()
        }
        self.engine = BlockCopyEngine(kv_caches, cpu_caches, self.device_id)
        logger.info("SimpleCPUOffload registered %d layers, %d cpu blocks",
                    len(kv_caches), self.num_cpu_blocks)

    def _drain_stores_touching(self, cpu_ids: list[int]) -> None:
        wanted = set(cpu_ids)
        for event, blocks in self._pending_stores.values():
            if blocks & wanted:
                event.synchronize()

    def start_load_kv(self, metadata: SimpleCPUOffloadMetadata) -> None:
        for req_id, (cpu_ids, gpu_ids) in metadata.reqs_to_load.items():
            self._drain_stores_touching(cpu_ids)
            compute_ready = torch.cuda.Event()
            compute_ready.record(torch.cuda.current_stream())
            self.load_stream.wait_event(compute_ready)
            self.engine.load(cpu_ids, gpu_ids, self.load_stream)
            done = torch.cuda.Event()
            done.record(self.load_stream)
            self._pending_loads[req_id] = done

    def wait_for_save(self, metadata: SimpleCPUOffloadMetadata) -> None:
        if not metadata.reqs_to_store:
            return
        self.store_stream.wait_stream(torch.cuda.current_stream())
        for req_id, (gpu_ids, cpu_ids) in metadata.reqs_to_store.items():
            self.engine.store(gpu_ids, cpu_ids, self.store_stream)
            done = torch.cuda.Event()
            done.record(self.store_stream)
            self._pending_stores[req_id] = (done, set(cpu_ids))

    def get_finished(self) -> tuple[set[str], set[str]]:
        finished_sending = {r for r, (ev, _) in self._pending_stores.items() if ev.query()}
        finished_recving = {r for r, ev in self._pending_loads.items() if ev.query()}
        for r in finished_sending:
            del self._pending_stores[r]
        for r in finished_recving:
            del self._pending_loads[r]
        return finished_sending, finished_recving
