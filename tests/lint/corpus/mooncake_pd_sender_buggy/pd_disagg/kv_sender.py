from __future__ import annotations

import functools
import hashlib
import logging
import threading
from queue import Queue
from typing import Iterator, Optional

from cuda import cudart

from .conn_types import KVArgs, KVPoll, SendRequest, TransferInfo
from .staging import StagingBufferPool, check_cuda
from .transfer_engine import MooncakeTransferEngine

logger = logging.getLogger(__name__)


def _page_runs(page_ids: list[int]) -> Iterator[tuple[int, int]]:
    """Group sorted page ids into (first_page, num_pages) contiguous runs."""
    start = prev = page_ids[0]
    for page in page_ids[1:]:
        if page != prev + 1:
            yield start, prev - start + 1
            start = page
        prev = page
    yield start, prev - start + 1


class StagedKVSender:
    """Packs a finished prefill's KV pages into a pinned staging buffer and
    pushes it to the decode instance once the D2H copies have landed."""

    def __init__(self, args: KVArgs, engine: MooncakeTransferEngine,
                 pool: StagingBufferPool) -> None:
        self.args = args
        self.engine = engine
        self.pool = pool
        check_cuda(cudart.cudaSetDevice(args.gpu_id))
        self.stream = check_cuda(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self.copy_events: dict[int, object] = {}
        self.requests: dict[int, SendRequest] = {}
        self.status: dict[int, KVPoll] = {}
        self.transfer_infos: dict[int, TransferInfo] = {}
        self.lock = threading.Lock()
        self._ready: Queue[Optional[int]] = Queue()
        self._thread = threading.Thread(target=self._transfer_worker, daemon=True)
        self._thread.start()

    def add_transfer_info(self, info: TransferInfo) -> None:
        with self.lock:
            self.transfer_infos[info.room] = info
            self.status[info.room] = KVPoll.WaitingForInput

    def send(self, room: int, page_ids: list[int]) -> None:
        """Called by the prefill scheduler right after launching the last chunk."""
        staging = self.pool.acquire()
        event = check_cuda(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
        offset = 0
        for layer_ptr, item_len in zip(self.args.kv_data_ptrs, self.args.kv_item_lens):
            for first_page, num_pages in _page_runs(page_ids):
                nbytes = num_pages * item_len
                assert offset + nbytes <= staging.size, "staging buffer too small"
                # expect: KVG001
                check_cuda(cudart.cudaMemcpyAsync(
                    staging.ptr + offset, layer_ptr + first_page * item_len, nbytes,
                    cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, self.stream))
                offset += nbytes
        check_cuda(cudart.cudaEventRecord(event, self.stream))

        req = SendRequest(room, page_ids, staging, event, offset)
        if self.args.verify_staging:
            # expect: KVG003
            req.digest = hashlib.blake2b(staging.host_view[:offset], digest_size=16).hexdigest()
        with self.lock:
            self.copy_events[room] = event
            self.requests[room] = req
            self.status[room] = KVPoll.Transferring
        self._ready.put(room)

    def _transfer_worker(self) -> None:
        check_cuda(cudart.cudaSetDevice(self.args.gpu_id))
        while (room := self._ready.get()) is not None:
            with self.lock:
                req = self.requests[room]
                info = self.transfer_infos[room]
            check_cuda(cudart.cudaEventSynchronize(req.copy_event))
            self.engine.transfer_async(info.mooncake_session_id, req.staging.ptr,
                                       info.dst_staging_ptr, req.nbytes,
                                       functools.partial(self._on_transfer_done, room))

    def _on_transfer_done(self, room: int, ok: bool) -> None:
        with self.lock:
            req = self.requests.pop(room)
            event = self.copy_events.pop(room)
            self.transfer_infos.pop(room, None)
            self.status[room] = KVPoll.Success if ok else KVPoll.Failed
        check_cuda(cudart.cudaEventDestroy(event))
        self.pool.release(req.staging)
        logger.debug("room %d: %d bytes sent (digest=%s)", room, req.nbytes, req.digest)

    def poll(self, room: int) -> KVPoll:
        with self.lock:
            return self.status.get(room, KVPoll.Bootstrapping)

    def close(self) -> None:
        self._ready.put(None)
        self._thread.join()
        check_cuda(cudart.cudaStreamDestroy(self.stream))
