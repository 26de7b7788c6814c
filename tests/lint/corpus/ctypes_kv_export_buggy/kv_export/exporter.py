# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import ctypes
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from ctypes import c_void_p
from dataclasses import dataclass
from typing import Sequence

from tensorrt_llm.logger import logger

from . import cudart as rt
from .constants import CUDA_MEMCPY_DEVICE_TO_HOST, DEFAULT_SLOT_BYTES
from .manifest import ExportManifest


@dataclass
class ExportConfig:
    export_dir: str
    slot_bytes: int = DEFAULT_SLOT_BYTES
    write_manifest: bool = True

    def path_for(self, request_id: int) -> str:
        return os.path.join(self.export_dir, f"req_{request_id}.kv")


@dataclass
class ExportJob:
    request_id: int
    host_ptr: int
    nbytes: int
    path: str


class KvBlockExporter:

    def __init__(self, config: ExportConfig):
        self._config = config
        self._stream = rt.stream_create()
        self._ready = rt.event_create()
        self._host_ptr = rt.host_alloc(config.slot_bytes)
        self._slot_free = threading.Semaphore(1)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv_export")
        self._manifest = ExportManifest(config.export_dir)

    def export(self, request_id: int, block_ptrs: Sequence[int], block_bytes: int,
               compute_stream: int) -> Future:
        nbytes = len(block_ptrs) * block_bytes
        if nbytes > self._config.slot_bytes:
            raise ValueError(f"request {request_id}: {nbytes} bytes exceed the export slot")
        self._slot_free.acquire()
        if compute_stream:
            rt.event_record(self._ready, compute_stream)
            rt.stream_wait_event(self._stream, self._ready)
        lib = rt.cudart()
        for i, src in enumerate(block_ptrs):
            dst = self._host_ptr + i * block_bytes
            # expect: KVG001
            rc = lib.cudaMemcpyAsync(c_void_p(dst), c_void_p(src), block_bytes, CUDA_MEMCPY_DEVICE_TO_HOST, c_void_p(self._stream))
            rt.check(rc, "cudaMemcpyAsync")
        job = ExportJob(request_id, self._host_ptr, nbytes, self._config.path_for(request_id))
        future = self._pool.submit(self._finalize, job)
        if self._config.write_manifest:
            self._manifest.add(job.request_id, job.host_ptr, job.nbytes, job.path)
        return future

    def _finalize(self, job: ExportJob) -> str:
        try:
            rt.stream_synchronize(self._stream)
            view = (ctypes.c_char * job.nbytes).from_address(job.host_ptr)
            with open(job.path, "wb") as fh:
                fh.write(view)
        finally:
            self._slot_free.release()
        logger.info(f"exported KV of request {job.request_id} to {job.path}")
        return job.path
