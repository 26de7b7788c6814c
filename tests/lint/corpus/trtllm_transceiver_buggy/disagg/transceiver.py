import logging
from concurrent.futures import Future
from typing import Dict, List, Tuple

import torch

from disagg import cudart
from disagg.buffer_manager import CacheTransBufferManager
from disagg.formatter import CacheFormatter
from disagg.sender import DataSender, SocketComm, TransferRequest

logger = logging.getLogger(__name__)


class CacheTransceiver:
    """Context-side transceiver: ships finished context KV blocks to the generation instance."""

    def __init__(self, kv_pool: torch.Tensor, max_blocks_per_request: int, num_buffers: int = 2):
        self._kv_pool = kv_pool  # [num_blocks, block_bytes] uint8 on the GPU
        self._block_bytes = kv_pool.shape[1]
        buffers = CacheTransBufferManager(max_blocks_per_request * self._block_bytes, num_buffers)
        self._sender = DataSender(buffers, CacheFormatter(), SocketComm())
        self._free_events: List[int] = [cudart.event_create() for _ in range(4 * num_buffers)]
        self._inflight: Dict[int, Tuple[Future, int]] = {}

    def respond_and_send_async(self, request_id: int, block_ids: List[int], peer: Tuple[str, int]) -> None:
        event = self._free_events.pop() if self._free_events else cudart.event_create()
        cudart.event_record(event, torch.cuda.current_stream().cuda_stream)
        block_ptrs = [self._kv_pool[b].data_ptr() for b in block_ids]
        request = TransferRequest(request_id, block_ptrs, self._block_bytes, peer, event)
        self._inflight[request_id] = (self._sender.send_async(request), event)

    def check_context_transfer_status(self, at_least_num: int = 0) -> List[int]:
        """Return ids of requests whose KV has been sent; their blocks may be freed."""
        finished: List[int] = []
        for request_id, (future, event) in list(self._inflight.items()):
            if future.done() or len(finished) < at_least_num:
                future.result()
                finished.append(request_id)
                self._free_events.append(event)
                del self._inflight[request_id]
        return finished
