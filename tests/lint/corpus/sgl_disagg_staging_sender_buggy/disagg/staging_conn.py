"""A TCP transfer backend for clusters without GPU-direct RDMA: the prefill side gathers a
chunk's KV pages into pinned staging memory on a gather stream and streams it to the decode
instance from a transfer thread.

Bug: the transfer thread makes the gather stream wait on nothing. A chunk is handed over as
soon as the scheduler has launched its forward, so the gather can read pages the forward's
attention layers have not written yet (and the decode side then attends to stale KV)."""

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional

import torch

from .base import BaseKVManager, BaseKVSender, KVArgs, KVPoll

logger = logging.getLogger(__name__)


@dataclass
class TransferChunk:
    room: int
    kv_pages: List[int]
    last_chunk: bool


class StagingKVManager(BaseKVManager):

    def __init__(self, args: KVArgs, kv_pool, is_prefill: bool, connection=None, max_chunk_pages=256):
        self.args = args
        self.kv_pool = kv_pool
        self.connection = connection
        self.request_status: Dict[int, KVPoll] = {}
        self.failures: Dict[int, Exception] = {}
        self.gather_stream = torch.cuda.Stream()
        self.staging = torch.empty((2, args.num_layers, max_chunk_pages, kv_pool.page_bytes), dtype=torch.uint8,
                                   device="cpu", pin_memory=True)
        self.transfer_queue: "queue.Queue[Optional[TransferChunk]]" = queue.Queue()
        if is_prefill:
            self.transfer_thread = threading.Thread(target=self.transfer_worker, daemon=True)
            self.transfer_thread.start()

    def update_status(self, room: int, status: KVPoll) -> None:
        self.request_status[room] = max(self.request_status.get(room, status), status)

    def add_transfer_request(self, chunk: TransferChunk) -> None:
        self.update_status(chunk.room, KVPoll.Transferring)
        self.transfer_queue.put(chunk)

    def _gather(self, chunk: TransferChunk) -> torch.cuda.Event:
        with torch.cuda.stream(self.gather_stream):
            for layer_id in range(self.args.num_layers):
                for i, page_id in enumerate(chunk.kv_pages):
                    k, v = self.kv_pool.page(layer_id, page_id)
                    # expect: KVG001
                    self.staging[0, layer_id, i].copy_(k.view(torch.uint8).flatten(), non_blocking=True)
                    # expect: KVG001
                    self.staging[1, layer_id, i].copy_(v.view(torch.uint8).flatten(), non_blocking=True)
            gathered = torch.cuda.Event()
            gathered.record()
        return gathered

    def transfer_worker(self) -> None:
        while True:
            chunk = self.transfer_queue.get()
            if chunk is None:
                break
            try:
                gathered = self._gather(chunk)
                gathered.synchronize()
                n = len(chunk.kv_pages)
                self.connection.send_chunk(chunk.room, self.staging[:, :, :n].numpy().tobytes())
                if chunk.last_chunk:
                    self.update_status(chunk.room, KVPoll.Success)
            except Exception as exc:
                logger.exception("KV transfer of room %d failed", chunk.room)
                self.failures[chunk.room] = exc
                self.update_status(chunk.room, KVPoll.Failed)


class StagingKVSender(BaseKVSender):

    def __init__(self, mgr: StagingKVManager, bootstrap_room: int):
        self.kv_mgr = mgr
        self.bootstrap_room = bootstrap_room
        self.num_kv_pages = 0
        self.kv_mgr.update_status(bootstrap_room, KVPoll.Bootstrapping)

    def init(self, num_kv_pages: int, aux_index: Optional[int] = None) -> None:
        self.num_kv_pages = num_kv_pages
        self.kv_mgr.update_status(self.bootstrap_room, KVPoll.WaitingForInput)

    def send(self, kv_pages: List[int], last_chunk: bool) -> None:
        self.kv_mgr.add_transfer_request(TransferChunk(self.bootstrap_room, list(kv_pages), last_chunk))

    def poll(self) -> KVPoll:
        return self.kv_mgr.request_status.get(self.bootstrap_room, KVPoll.Bootstrapping)

    def failure_exception(self) -> Exception:
        return self.kv_mgr.failures.get(self.bootstrap_room, RuntimeError("unknown KV transfer failure"))
