import logging
from typing import Dict, List

import torch
from cuda.bindings import driver

from .block_pool import KVBlockPool
from .driver_utils import as_stream, check_cuda, create_event
from .swap_worker import SwapKind, SwapRequest, SwapWorker

logger = logging.getLogger(__name__)


class DynamicInferenceContext:
    """Tracks per-request KV blocks and moves paused requests to host memory."""

    def __init__(self, num_layers: int, num_blocks: int, num_host_slots: int, chunk_bytes: int,
                 device_ordinal: int = 0) -> None:
        self.device = torch.device("cuda", device_ordinal)
        self.pool = KVBlockPool(num_layers, num_blocks, num_host_slots, chunk_bytes, self.device)
        self.free_blocks: List[int] = list(range(num_blocks))
        self.request_blocks: Dict[int, List[int]] = {}
        self.paused_slots: Dict[int, List[int]] = {}
        self.worker = SwapWorker(self.pool, device_ordinal)
        self.worker.start()

    def _compute_stream(self) -> driver.CUstream:
        return as_stream(torch.cuda.current_stream(self.device).cuda_stream)

    def _submit(self, kind: SwapKind, block_ids: List[int], slots: List[int], staging=None) -> SwapRequest:
        ready = create_event()
        check_cuda(driver.cuEventRecord(ready, self._compute_stream()))
        req = SwapRequest(kind, block_ids, slots, ready, staging=staging)
        self.worker.requests.put(req)
        return req

    def _join_compute(self, req: SwapRequest) -> None:
        req.submitted.wait()
        check_cuda(driver.cuStreamWaitEvent(self._compute_stream(), req.done_event, 0))

    def allocate_blocks(self, request_id: int, count: int) -> List[int]:
        blocks, self.free_blocks = self.free_blocks[:count], self.free_blocks[count:]
        self.request_blocks.setdefault(request_id, []).extend(blocks)
        return blocks

    def pause_requests(self, request_ids: List[int]) -> None:
        for request_id in request_ids:
            blocks = self.request_blocks.pop(request_id)
            slots = self.pool.allocate_slots(len(blocks))
            req = self._submit(SwapKind.EVICT, blocks, slots)
            self.paused_slots[request_id] = slots
            self._join_compute(req)
            self.free_blocks.extend(blocks)
        logger.info("paused %d requests, %d free blocks", len(request_ids), len(self.free_blocks))

    def resume_requests(self, request_ids: List[int]) -> None:
        for request_id in request_ids:
            slots = self.paused_slots.pop(request_id)
            blocks = self.allocate_blocks(request_id, len(slots))
            req = self._submit(SwapKind.RESTORE, blocks, slots)
            self._join_compute(req)
            self.pool.release_slots(slots)

    def load_prefix(self, request_id: int, path: str, num_blocks: int) -> None:
        staging = torch.empty((num_blocks, self.pool.slot_bytes), dtype=torch.uint8, pin_memory=True)
        with open(path, "rb") as f:
            f.readinto(staging.numpy())
        blocks = self.allocate_blocks(request_id, num_blocks)
        req = self._submit(SwapKind.PREFIX, blocks, [], staging=staging)
        self._join_compute(req)
