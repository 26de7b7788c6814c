# SPDX-License-Identifier: Apache-2.0
import logging
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import cupy
import torch

from .buffers import compute_stream_event
from .config import RECV_THREAD_NAME, SEND_THREAD_NAME, MooncakeStoreConfig
from .kv_transfer import KVCacheStoreRecvingThread, KVCacheStoreSendingThread, TransferRequest

logger = logging.getLogger(__name__)


@dataclass
class ReqMeta:
    req_id: str
    block_ids: List[int]
    block_hashes: List[str]
    load: bool = False
    save: bool = False


@dataclass
class MooncakeConnectorMetadata:
    requests: List[ReqMeta] = field(default_factory=list)


class MooncakeStoreConnectorV1Worker:
    def __init__(self, config: MooncakeStoreConfig, rank: int, store):
        self.config = config
        self.rank = rank
        self.store = store
        self.last_layer_name: Optional[str] = None
        self.sending_thread: Optional[KVCacheStoreSendingThread] = None
        self.recving_thread: Optional[KVCacheStoreRecvingThread] = None

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        # Each layer: [2, num_blocks, block_size, num_kv_heads, head_size]
        kv_layers = [cupy.from_dlpack(t) for t in kv_caches.values()]
        block_shape = tuple(kv_layers[0].shape[2:])
        self.last_layer_name = list(kv_caches)[-1]
        self.sending_thread = KVCacheStoreSendingThread(
            self.store, kv_layers, block_shape, SEND_THREAD_NAME
        )
        self.recving_thread = KVCacheStoreRecvingThread(
            self.store, kv_layers, block_shape, RECV_THREAD_NAME
        )
        self.sending_thread.start()
        self.recving_thread.start()

    def _request(self, req: ReqMeta, event: Optional[cupy.cuda.Event]) -> TransferRequest:
        keys = [f"{self.config.model_name}@{self.rank}@{h}" for h in req.block_hashes]
        return TransferRequest(req.req_id, keys, list(req.block_ids), event)

    def start_load_kv(self, metadata: MooncakeConnectorMetadata) -> None:
        for req in metadata.requests:
            if req.load:
                self.recving_thread.add_request(self._request(req, None))

    def save_kv_layer(self, layer_name: str, metadata: MooncakeConnectorMetadata) -> None:
        if not self.config.save_in_forward or layer_name != self.last_layer_name:
            return
        event = compute_stream_event()
        for req in metadata.requests:
            if req.save:
                self.sending_thread.add_request(self._request(req, event))

    def wait_for_save(self, metadata: MooncakeConnectorMetadata) -> None:
        if self.config.save_in_forward:
            return
        for req in metadata.requests:
            if req.save:
                self.sending_thread.add_request(self._request(req, None))

    def get_finished(self) -> Tuple[Set[str], Set[str]]:
        done_sending = self.sending_thread.get_and_clear_finished_requests()
        done_recving = self.recving_thread.get_and_clear_finished_requests()
        return done_sending, done_recving
