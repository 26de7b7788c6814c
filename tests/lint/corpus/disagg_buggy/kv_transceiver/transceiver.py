import ctypes
import logging
import queue
import threading
from typing import List

import torch
from cuda.bindings import driver as cu

from .constants import BOUNCE_BUFFER_BYTES
from .copy_engine import gather_blocks, scatter_blocks
from .cuda_utils import CUASSERT, new_event, new_transfer_stream, order_after

logger = logging.getLogger("tensorrt_llm")


class KvCacheTransceiver:

    def __init__(self, kv_pool: torch.Tensor, block_bytes: int, connection):
        self.kv_pool = kv_pool
        self.block_bytes = block_bytes
        self.device_ordinal = kv_pool.device.index or 0
        self._stream = new_transfer_stream()
        self._event = new_event()
        self._bounce = torch.empty(BOUNCE_BUFFER_BYTES, dtype=torch.uint8, pin_memory=True)
        self._connection = connection
        self._outbox: "queue.Queue" = queue.Queue()
        self._sender = threading.Thread(target=self._send_loop, daemon=True,
                                        name="kv-transceiver-send")
        self._sender.start()

    def _block_ptrs(self, block_ids: List[int]) -> List[int]:
        base = self.kv_pool.data_ptr()
        return [base + b * self.block_bytes for b in block_ids]

    def _compute_stream(self) -> cu.CUstream:
        return cu.CUstream(torch.cuda.current_stream().cuda_stream)

    def respond_and_send(self, request, block_ids: List[int]) -> None:
        order_after(self._stream, self._compute_stream(), self._event)
        nbytes = gather_blocks(self._bounce.data_ptr(), self._block_ptrs(block_ids),
                               self.block_bytes, self._stream, self.device_ordinal)
        CUASSERT(cu.cuStreamSynchronize(self._stream))
        payload = bytes(self._bounce[:nbytes].numpy())
        self._outbox.put((request.py_request_id, payload))

    def receive_into(self, request, block_ids: List[int]) -> None:
        payload = self._connection.recv(request.py_request_id)
        ctypes.memmove(self._bounce.data_ptr(), payload, len(payload))
        scatter_blocks(self._block_ptrs(block_ids), self._bounce.data_ptr(),
                       self.block_bytes, self._stream)
        CUASSERT(cu.cuStreamSynchronize(self._stream))

    def _send_loop(self) -> None:
        while True:
            item = self._outbox.get()
            if item is None:
                return
            request_id, payload = item
            self._connection.send(request_id, payload)
            logger.debug("sent %d bytes of KV for request %d", len(payload), request_id)
