import ctypes
import logging
import queue
import struct
import threading
from concurrent.futures import Future
from dataclasses import dataclass

from . import cudart
from .constants import (
    GATHER_SRC_ORDER,
    WIRE_HEADER_FMT,
    cudaMemcpyDeviceToHost,
    cudaMemcpyFlagPreferOverlapWithCompute,
)

logger = logging.getLogger("tensorrt_llm")


@dataclass
class TransferRequest:
    request_id: int
    block_ptrs: list[int]
    block_bytes: int
    ready: ctypes.c_void_p
    compute_stream: int
    conn: object
    future: Future


class KvCacheSender:

    def __init__(self, max_transfer_bytes: int, use_batch_memcpy: bool = True):
        self._rt = cudart.load()
        self._use_batch = use_batch_memcpy
        self._stream = cudart.stream_create()
        self._copied = cudart.event_create()
        self._staging_ptr = cudart.malloc_host(max_transfer_bytes)
        self._staging = (ctypes.c_char * max_transfer_bytes).from_address(self._staging_ptr)
        self._queue: "queue.Queue[TransferRequest | None]" = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="kv-sender", daemon=True)
        self._thread.start()

    def enqueue(self, req: TransferRequest) -> None:
        self._queue.put(req)

    def _gather(self, req: TransferRequest) -> int:
        n = len(req.block_ptrs)
        bb = req.block_bytes
        if n > 1 and self._use_batch:
            ptr_array = ctypes.c_void_p * n
            dsts = ptr_array(*[self._staging_ptr + i * bb for i in range(n)])
            srcs = ptr_array(*req.block_ptrs)
            sizes = (ctypes.c_size_t * n)(*([bb] * n))
            attrs = cudart.cudaMemcpyAttributes(
                srcAccessOrder=GATHER_SRC_ORDER, flags=cudaMemcpyFlagPreferOverlapWithCompute
            )
            attrs_idxs = (ctypes.c_size_t * 1)(0)
            fail_idx = ctypes.c_size_t(0)
            # expect: KVG002
            err = self._rt.cudaMemcpyBatchAsync(
                dsts, srcs, sizes, n, ctypes.byref(attrs), attrs_idxs, 1,
                ctypes.byref(fail_idx), self._stream,
            )
            cudart.check(err)
        else:
            for i, src in enumerate(req.block_ptrs):
                err = self._rt.cudaMemcpyAsync(
                    self._staging_ptr + i * bb, src, bb, cudaMemcpyDeviceToHost, self._stream
                )
                cudart.check(err)
        return n * bb

    def _loop(self) -> None:
        while True:
            req = self._queue.get()
            if req is None:
                return
            try:
                cudart.stream_wait_event(self._stream, req.ready)
                total = self._gather(req)
                cudart.event_record(self._copied, req.compute_stream)
                cudart.event_synchronize(self._copied)
                req.conn.sendall(struct.pack(WIRE_HEADER_FMT, req.request_id, total))
                # expect: KVG003
                req.conn.sendall(memoryview(self._staging)[:total])
                req.future.set_result(total)
            except Exception as exc:  # noqa: BLE001
                logger.error("KV send for request %d failed: %s", req.request_id, exc)
                req.future.set_exception(exc)
            finally:
                cudart.event_destroy(req.ready)

    def shutdown(self) -> None:
        self._queue.put(None)
        self._thread.join()
