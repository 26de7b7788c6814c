from __future__ import annotations

import functools
import logging
import socket
import struct
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Dict, List, Sequence

import torch

from disaggregation import cudart
from disaggregation.config import CacheTransceiverConfig
from disaggregation.staging import HostStagingPool, gather_blocks_to_host

logger = logging.getLogger(__name__)


@dataclass
class ContextRequest:
    request_id: int
    block_ids: List[int] = field(default_factory=list)
    transfer_done: bool = False


class KvCacheSender:
    def __init__(
        self,
        config: CacheTransceiverConfig,
        layer_caches: Sequence[torch.Tensor],
        peer: socket.socket,
        bytes_per_token: int,
    ):
        self.config = config
        self.layer_caches = list(layer_caches)
        self.peer = peer
        self.staging = HostStagingPool(
            config.num_staging_buffers, config.max_tokens_in_buffer * bytes_per_token
        )
        self._stream = cudart.stream_create()
        self._executor = ThreadPoolExecutor(
            max_workers=config.send_workers, thread_name_prefix="kv-sender"
        )
        self._inflight: Dict[int, Future] = {}

    def respond_and_send_async(self, req: ContextRequest) -> None:
        """Called by the executor loop once the context forward is enqueued."""
        ready = cudart.event_create()
        cudart.event_record(ready, torch.cuda.current_stream().cuda_stream)
        buf = self.staging.acquire()
        fut = self._executor.submit(self._stage, req, buf, ready)
        fut.add_done_callback(functools.partial(self._on_staged, req, buf))
        self._inflight[req.request_id] = fut

    def _stage(self, req: ContextRequest, buf: torch.Tensor, ready: int) -> int:
        cudart.stream_wait_event(self._stream, ready)
        nbytes = gather_blocks_to_host(buf, self.layer_caches, req.block_ids, self._stream)
        cudart.stream_synchronize(self._stream)
        cudart.event_destroy(ready)
        return nbytes

    def _on_staged(self, req: ContextRequest, buf: torch.Tensor, fut: Future) -> None:
        try:
            nbytes = fut.result()
            header = struct.pack("<QQ", req.request_id, nbytes)
            payload = buf[:nbytes].numpy().tobytes()
            self.peer.sendall(header + payload)
            req.transfer_done = True
        except Exception:
            logger.exception("KV transfer for request %d failed", req.request_id)
        finally:
            self.staging.release(buf)

    def check_context_transfer_status(self) -> List[int]:
        done = [rid for rid, fut in self._inflight.items() if fut.done()]
        for rid in done:
            del self._inflight[rid]
        return done

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
