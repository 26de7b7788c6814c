# SPDX-License-Identifier: Apache-2.0
import logging
import queue
import threading
from dataclasses import dataclass
from typing import List, Optional, Sequence, Set

import cupy

from .buffers import alloc_block_staging, load_block_from_host, stage_block_to_host

logger = logging.getLogger(__name__)


@dataclass
class TransferRequest:
    req_id: str
    keys: List[str]
    block_ids: List[int]
    ready_event: Optional[cupy.cuda.Event] = None


class KVTransferThread(threading.Thread):
    def __init__(self, store, kv_layers: List[cupy.ndarray], block_shape: Sequence[int], name: str):
        super().__init__(daemon=True, name=name)
        self.store = store
        self.kv_layers = kv_layers
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.staging = alloc_block_staging(len(kv_layers), block_shape, kv_layers[0].dtype)
        self.request_queue: "queue.Queue[Optional[TransferRequest]]" = queue.Queue()
        self.finished_requests: Set[str] = set()
        self._lock = threading.Lock()

    def add_request(self, request: TransferRequest) -> None:
        self.request_queue.put(request)

    def get_and_clear_finished_requests(self) -> Set[str]:
        with self._lock:
            finished, self.finished_requests = self.finished_requests, set()
        return finished

    def run(self) -> None:
        while True:
            request = self.request_queue.get()
            if request is None:
                break
            try:
                with self.stream:
                    if request.ready_event is not None:
                        self.stream.wait_event(request.ready_event)
                    self._handle_request(request)
            except Exception:
                logger.exception("KV transfer failed for %s", request.req_id)
            with self._lock:
                self.finished_requests.add(request.req_id)

    def _handle_request(self, request: TransferRequest) -> None:
        raise NotImplementedError


class KVCacheStoreSendingThread(KVTransferThread):
    def _handle_request(self, request: TransferRequest) -> None:
        for key, block_id in zip(request.keys, request.block_ids):
            if self.store.is_exist(key):
                continue
            stage_block_to_host(self.kv_layers, block_id, self.staging, self.stream)
            self.store.put_from(key, self.staging.ctypes.data, self.staging.nbytes)


class KVCacheStoreRecvingThread(KVTransferThread):
    def _handle_request(self, request: TransferRequest) -> None:
        for key, block_id in zip(request.keys, request.block_ids):
            self.store.get_into(key, self.staging.ctypes.data, self.staging.nbytes)
            load_block_from_host(self.staging, self.kv_layers, block_id, self.stream)
            self.stream.synchronize()
