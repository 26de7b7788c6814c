# SPDX-License-Identifier: Apache-2.0
"""The offload thread: takes offload requests off a queue and copies each block from the
primary pool to its slot in the secondary pool on a non-blocking transfer stream."""

import queue
import threading
from dataclasses import dataclass, field
from typing import List, Optional

from cuda.bindings import runtime as cudart

from .cuda_utils import check_cuda_error, create_event, create_transfer_stream


@dataclass
class OffloadRequest:
    request_id: int
    primary_blocks: List[int]
    secondary_blocks: List[int]
    src_ptrs: List[int] = field(default_factory=list)
    dst_ptrs: List[int] = field(default_factory=list)
    block_bytes: int = 0
    # recorded on the engine stream when the request was freed: its last forward may still
    # be writing these blocks
    ready_event: int = 0


@dataclass
class OffloadResult:
    request_id: int
    primary_blocks: List[int]
    secondary_blocks: List[int]
    done_event: int


class KVCacheTransferWorker(threading.Thread):

    def __init__(self, device_id: int):
        super().__init__(name="kv-cache-offload", daemon=True)
        self.device_id = device_id
        self.transfer_stream = create_transfer_stream()
        self.requests: "queue.Queue[Optional[OffloadRequest]]" = queue.Queue()
        self.results: "queue.Queue[OffloadResult]" = queue.Queue()

    def submit(self, request: OffloadRequest) -> None:
        self.requests.put(request)

    def shutdown(self) -> None:
        self.requests.put(None)
        self.join()

    def run(self) -> None:
        check_cuda_error(cudart.cudaSetDevice(self.device_id))
        kind = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
        while True:
            request = self.requests.get()
            if request is None:
                break
            check_cuda_error(cudart.cudaStreamWaitEvent(self.transfer_stream, request.ready_event, 0))
            check_cuda_error(cudart.cudaEventDestroy(request.ready_event))
            for dst, src in zip(request.dst_ptrs, request.src_ptrs):
                check_cuda_error(cudart.cudaMemcpyAsync(dst, src, request.block_bytes, kind,
                                                        self.transfer_stream))
            done = create_event()
            check_cuda_error(cudart.cudaEventRecord(done, self.transfer_stream))
            self.results.put(OffloadResult(request.request_id, request.primary_blocks,
                                           request.secondary_blocks, done))
