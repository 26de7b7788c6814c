"""Python KV cache transceiver for context-only requests: once a context request's forward is
launched, its blocks are staged into pinned memory on a transfer stream and sent to the
generation instance from a single sender thread, so the executor loop never blocks on the
network.

Bug: before sending, the sender waits for ``torch.cuda.current_stream()`` on *its own thread*:
that is the default stream, not the transfer stream the copies were issued on, so the socket
can send the staging buffer before the copies have landed."""

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, List

import torch

from trt_disagg.connection import KvConnection
from trt_disagg.resource_manager import KVCacheManager


@dataclass
class SendRequest:
    request_id: int
    block_ids: List[int]
    context_done: torch.cuda.Event


class PyKvCacheTransceiver:
    def __init__(self, kv_cache_manager: KVCacheManager, max_blocks_per_request: int, peer: KvConnection):
        self.kv_cache_manager = kv_cache_manager
        self.peer = peer
        self.transfer_stream = torch.cuda.Stream()
        self.staging = torch.empty(
            (max_blocks_per_request, kv_cache_manager.config.block_bytes), dtype=torch.uint8, pin_memory=True
        )
        self._sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-sender")
        self.inflight: Dict[int, Future] = {}

    def respond_and_send_async(self, request) -> None:
        """Called on the executor thread right after the request's context forward was launched."""
        context_done = torch.cuda.Event()
        context_done.record()
        block_ids = self.kv_cache_manager.get_block_ids(request.request_id)
        send = SendRequest(request.request_id, block_ids, context_done)
        self.inflight[request.request_id] = self._sender.submit(self._send, send)

    def _send(self, send: SendRequest) -> None:
        pool = self.kv_cache_manager.pool
        n = len(send.block_ids)
        with torch.cuda.stream(self.transfer_stream):
            self.transfer_stream.wait_event(send.context_done)
            for i, block_id in enumerate(send.block_ids):
                self.staging[i].copy_(pool[block_id], non_blocking=True)
        torch.cuda.current_stream().synchronize()
        self.peer.send_blocks(send.request_id, self.staging[:n])

    def check_context_transfer_status(self) -> List[int]:
        done = [rid for rid, fut in self.inflight.items() if fut.done()]
        for rid in done:
            self.inflight.pop(rid).result()
        return done
