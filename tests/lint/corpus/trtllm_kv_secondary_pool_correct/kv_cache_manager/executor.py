import logging
import queue
import threading
from dataclasses import dataclass

import torch
from cuda import cudart

from .block_pool import BlockPool, KVCacheBlock
from .cuda_utils import CUASSERT
from .transfer_manager import KVCacheTransferManager

logger = logging.getLogger(__name__)


@dataclass
class ScheduledBatch:
    request_ids: list[int]
    input_ids: torch.Tensor
    reused_blocks: list[KVCacheBlock]


class PyExecutor:
    def __init__(self, model_engine, scheduler, pool: BlockPool):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.pool = pool
        self.compute_stream = torch.cuda.Stream()
        self.kv_transfer = KVCacheTransferManager(pool, self.compute_stream.cuda_stream)
        self.response_queue: queue.Queue = queue.Queue()
        self.is_shutdown = threading.Event()
        self.worker = threading.Thread(target=self._executor_loop, name="py_executor", daemon=True)

    def _prepare_resources(self, batch: ScheduledBatch) -> list[cudart.cudaEvent_t]:
        events = []
        for block in batch.reused_blocks:
            if block.is_primary:
                continue
            victim = self.pool.pick_victim()
            freed_index, offload_event = self.kv_transfer.offload(victim)
            events.append(self.kv_transfer.onboard(block, freed_index, after=offload_event))
        return events

    def _forward_step(self, batch: ScheduledBatch, transfer_events: list[cudart.cudaEvent_t]):
        for event in transfer_events:
            CUASSERT(cudart.cudaStreamWaitEvent(self.compute_stream.cuda_stream, event, 0))
        with torch.cuda.stream(self.compute_stream):
            outputs = self.model_engine.forward(batch.input_ids, kv_cache_pool=self.pool.primary)
            done = torch.cuda.Event()
            done.record()
        return outputs, done

    def _executor_loop(self) -> None:
        while not self.is_shutdown.is_set():
            batch = self.scheduler.schedule()
            if batch is None:
                continue
            transfer_events = self._prepare_resources(batch)
            outputs, done = self._forward_step(batch, transfer_events)
            self.kv_transfer.retire_finished()
            # responses are materialized by the result handler thread after `done`
            self.response_queue.put((batch.request_ids, outputs, done))

    def start(self) -> None:
        self.worker.start()

    def shutdown(self) -> None:
        self.is_shutdown.set()
        self.worker.join()
