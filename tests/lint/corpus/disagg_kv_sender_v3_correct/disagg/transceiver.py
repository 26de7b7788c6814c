# SPDX-License-Identifier: Apache-2.0
import ctypes
import logging
import socket
import struct
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from ._cudart import check, cudart
from .constants import (
    DEFAULT_STAGING_BYTES,
    HEADER_MAGIC,
    cudaEventDisableTiming,
    cudaHostAllocDefault,
    cudaMemcpySrcAccessOrderStream,
    cudaStreamNonBlocking,
)
from .formatter import CacheFormatter

logger = logging.getLogger("tensorrt_llm")


@dataclass
class CacheTransceiverConfig:
    block_bytes: int
    staging_bytes: int = DEFAULT_STAGING_BYTES
    src_access_order: int = cudaMemcpySrcAccessOrderStream
    verify_transfer: bool = False


class PyCacheSender:
    """Context-phase side of disaggregated serving: ships a finished request's
    KV blocks to the generation instance over a socket."""

    def __init__(self, config: CacheTransceiverConfig, execution_stream: torch.cuda.Stream):
        self._cfg = config
        self._execution_stream = execution_stream
        lib = cudart()
        self._stream = ctypes.c_void_p()
        check(lib.cudaStreamCreateWithFlags(ctypes.byref(self._stream), cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags")
        self._staging_ptr = ctypes.c_void_p()
        check(lib.cudaHostAlloc(ctypes.byref(self._staging_ptr), config.staging_bytes,
                                cudaHostAllocDefault), "cudaHostAlloc")
        self._staging = np.ctypeslib.as_array(
            (ctypes.c_uint8 * config.staging_bytes).from_address(self._staging_ptr.value)
        )
        self._formatter = CacheFormatter(
            config.block_bytes, config.src_access_order, torch.cuda.current_device()
        )
        # one sender thread: the staging area is reused request after request
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv_sender")

    def respond_and_send_async(
        self, request_id: int, block_ptrs: Sequence[int], conn: socket.socket
    ) -> "Future[int]":
        lib = cudart()
        ready = ctypes.c_void_p()
        check(lib.cudaEventCreateWithFlags(ctypes.byref(ready), cudaEventDisableTiming),
              "cudaEventCreateWithFlags")
        check(lib.cudaEventRecord(ready, ctypes.c_void_p(self._execution_stream.cuda_stream)),
              "cudaEventRecord")
        return self._executor.submit(self._send, request_id, list(block_ptrs), conn, ready)

    def _send(self, request_id: int, block_ptrs: list[int], conn: socket.socket,
              ready: ctypes.c_void_p) -> int:
        lib = cudart()
        check(lib.cudaStreamWaitEvent(self._stream, ready, 0), "cudaStreamWaitEvent")
        nbytes = self._formatter.stage_blocks(block_ptrs, self._staging_ptr.value, self._stream)
        crc = 0
        check(lib.cudaStreamSynchronize(self._stream), "cudaStreamSynchronize")
        if self._cfg.verify_transfer:
            crc = zlib.crc32(self._staging[:nbytes])
        conn.sendall(struct.pack("<IQQI", HEADER_MAGIC, request_id, nbytes, crc))
        conn.sendall(memoryview(self._staging[:nbytes]))
        lib.cudaEventDestroy(ready)
        logger.debug("sent %d bytes of KV cache for request %d", nbytes, request_id)
        return nbytes
