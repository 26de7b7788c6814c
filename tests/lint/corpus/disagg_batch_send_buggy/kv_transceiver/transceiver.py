# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import queue
import struct
import threading
from typing import List, Optional, Tuple

from cuda.bindings import driver

from tensorrt_llm.logger import logger

from .constants import (DEFAULT_STAGING_BYTES, HEADER_BYTES, RECV_SRC_ACCESS_ORDER,
                        SEND_SRC_ACCESS_ORDER)
from .cuda_utils import cu_check, make_copy_attrs
from .staging import PinnedStaging


class HostStagedKvTransceiver:

    def __init__(self, device_id: int, pool_ptr: int, block_bytes: int, connection,
                 staging_bytes: int = DEFAULT_STAGING_BYTES):
        cu_check(driver.cuInit(0))
        device = cu_check(driver.cuDeviceGet(device_id))
        self._ctx = cu_check(driver.cuDevicePrimaryCtxRetain(device))
        cu_check(driver.cuCtxSetCurrent(self._ctx))
        self._device_id = device_id
        self._pool_ptr = pool_ptr
        self._block_bytes = block_bytes
        self._conn = connection
        self._stream = cu_check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
        flags = driver.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self._compute_ready = cu_check(driver.cuEventCreate(flags))
        self._send_done = cu_check(driver.cuEventCreate(flags))
        self._recv_done = cu_check(driver.cuEventCreate(flags))
        self._staging = PinnedStaging(staging_bytes)
        self._outbox: "queue.Queue[Optional[Tuple[int, int]]]" = queue.Queue()
        self._sender = threading.Thread(target=self._send_loop, name="kv_send", daemon=True)
        self._sender.start()

    def _block_ptr(self, block_id: int) -> driver.CUdeviceptr:
        return driver.CUdeviceptr(self._pool_ptr + block_id * self._block_bytes)

    def _order_after_compute(self, compute_stream: int) -> None:
        cu_check(driver.cuEventRecord(self._compute_ready, driver.CUstream(compute_stream)))
        cu_check(driver.cuStreamWaitEvent(self._stream, self._compute_ready, 0))

    def respond_and_send(self, request_id: int, block_ids: List[int], compute_stream: int) -> None:
        """Context side: gather the request's blocks into host staging and hand them to the sender."""
        nbytes = len(block_ids) * self._block_bytes
        self._staging.acquire()
        self._order_after_compute(compute_stream)
        srcs = [self._block_ptr(b) for b in block_ids]
        dsts = [driver.CUdeviceptr(self._staging.ptr + i * self._block_bytes) for i in range(len(block_ids))]
        sizes = [self._block_bytes] * len(block_ids)
        attrs = [make_copy_attrs(SEND_SRC_ACCESS_ORDER, src_device=self._device_id, dst_device=None)]
        # expect: KVG002
        cu_check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], 1, self._stream))
        cu_check(driver.cuEventRecord(self._send_done, self._stream))
        self._outbox.put((request_id, nbytes))

    def _send_loop(self) -> None:
        cu_check(driver.cuCtxSetCurrent(self._ctx))
        while True:
            item = self._outbox.get()
            if item is None:
                break
            request_id, nbytes = item
            try:
                cu_check(driver.cuEventSynchronize(self._send_done))
                self._conn.sendall(struct.pack("<QQ", request_id, nbytes))
                self._conn.sendall(self._staging.view(nbytes))
            finally:
                self._staging.release()
            logger.debug(f"kv_send: request {request_id} sent {nbytes} bytes")

    def receive(self, block_ids: List[int], compute_stream: int) -> int:
        """Generation side: scatter one incoming payload into freshly assigned device blocks."""
        header = self._conn.recv_exactly(HEADER_BYTES)
        request_id, nbytes = struct.unpack("<QQ", header)
        self._staging.acquire()
        try:
            self._staging.fill(self._conn.recv_exactly(nbytes))
            self._order_after_compute(compute_stream)
            srcs = [driver.CUdeviceptr(self._staging.ptr + i * self._block_bytes) for i in range(len(block_ids))]
            dsts = [self._block_ptr(b) for b in block_ids]
            sizes = [self._block_bytes] * len(block_ids)
            attrs = [make_copy_attrs(RECV_SRC_ACCESS_ORDER, src_device=None, dst_device=self._device_id)]
            cu_check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), attrs, [0], 1, self._stream))
            cu_check(driver.cuEventRecord(self._recv_done, self._stream))
            cu_check(driver.cuStreamWaitEvent(driver.CUstream(compute_stream), self._recv_done, 0))
            cu_check(driver.cuEventSynchronize(self._recv_done))
        finally:
            self._staging.release()
        return request_id

    def shutdown(self) -> None:
        self._outbox.put(None)
        self._sender.join()
        self._staging.close()
