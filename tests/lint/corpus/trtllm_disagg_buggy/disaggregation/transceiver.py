from __future__ import annotations

import logging
import socket
from dataclasses import dataclass
from typing import Callable

import torch

from .cudart import CudaEvent
from .formatter import KVCacheFormatter
from .sender import KvCacheSender, SendTask

logger = logging.getLogger("tensorrt_llm")


@dataclass(frozen=True)
class CacheTransceiverConfig:
    backend: str = "SOCKET"
    max_tokens_in_buffer: int = 8192


class PyCacheTransceiver:

    def __init__(self, kv_pool: torch.Tensor, config: CacheTransceiverConfig,
                 get_block_ids: Callable[[int], list[int]],
                 connect: Callable[[int], socket.socket]):
        self._config = config
        self._get_block_ids = get_block_ids
        self._formatter = KVCacheFormatter(kv_pool)
        self._transfer_stream = torch.cuda.Stream()
        self._sender = KvCacheSender(connect)
        self._sender.start()
        self._recv_pending: dict[int, tuple[torch.Tensor, CudaEvent]] = {}

    def respond_and_send_async(self, request) -> None:
        """Context side: stage the request's KV blocks and hand them off."""
        block_ids = self._get_block_ids(request.py_request_id)
        staging = torch.empty(self._formatter.nbytes(len(block_ids)),
                              dtype=torch.uint8,
                              pin_memory=True)
        stream = self._transfer_stream.cuda_stream
        ready = CudaEvent()
        ready.record(stream)
        ready.wait(stream)
        self._formatter.copy_blocks_to_host(block_ids, staging, stream)
        copied = CudaEvent()
        copied.record(stream)
        self._sender.submit(SendTask(request.py_request_id, staging, copied))

    def receive_async(self, request, payload: bytes) -> None:
        """Generation side: upload a received payload into a fresh buffer."""
        staging = torch.frombuffer(bytearray(payload),
                                   dtype=torch.uint8).pin_memory()
        with torch.cuda.stream(self._transfer_stream):
            recv = torch.empty_like(staging, device="cuda")
        stream = self._transfer_stream.cuda_stream
        self._formatter.copy_host_to_device(staging, recv, stream)
        uploaded = CudaEvent()
        uploaded.record(stream)
        self._recv_pending[request.py_request_id] = (staging, uploaded)
        uploaded.wait(torch.cuda.current_stream().cuda_stream)
        recv.record_stream(torch.cuda.current_stream())
        self._formatter.scatter_received(
            recv, self._get_block_ids(request.py_request_id))

    def check_context_transfer_status(self) -> set[int]:
        return self._sender.pop_completed()

    def check_gen_transfer_status(self) -> set[int]:
        done = set()
        for request_id, (_, uploaded) in list(self._recv_pending.items()):
            uploaded.synchronize()
            uploaded.destroy()
            del self._recv_pending[request_id]
            done.add(request_id)
        return done
