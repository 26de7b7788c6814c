import logging
from concurrent.futures import Future
from dataclasses import dataclass

from . import cudart
from .sender import KvCacheSender, TransferRequest

logger = logging.getLogger("tensorrt_llm")


@dataclass(frozen=True)
class TransceiverConfig:
    block_bytes: int
    max_blocks_per_request: int
    use_batch_memcpy: bool = True


class CacheTransceiver:

    def __init__(self, cfg: TransceiverConfig):
        self.cfg = cfg
        self._sender = KvCacheSender(
            cfg.block_bytes * cfg.max_blocks_per_request, cfg.use_batch_memcpy
        )
        self._inflight: dict[int, Future] = {}

    def respond_and_send_async(self, request_id: int, block_ptrs: list[int], compute_stream: int, conn) -> None:
        ready = cudart.event_create()
        cudart.event_record(ready, compute_stream)
        fut: Future = Future()
        self._sender.enqueue(
            TransferRequest(request_id, block_ptrs, self.cfg.block_bytes, ready, compute_stream, conn, fut)
        )
        self._inflight[request_id] = fut

    def check_context_transfer_status(self, block: bool = False) -> list[int]:
        done = []
        for rid, fut in list(self._inflight.items()):
            if block or fut.done():
                fut.result()
                done.append(rid)
                del self._inflight[rid]
        return done
