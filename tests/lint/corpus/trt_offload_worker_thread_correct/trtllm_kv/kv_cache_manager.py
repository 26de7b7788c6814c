# SPDX-License-Identifier: Apache-2.0
import queue
from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, List, Tuple

import torch
from cuda.bindings import runtime as cudart

from .cuda_utils import check_cuda_error, create_event
from .transfer_worker import KVCacheTransferWorker, OffloadRequest


@dataclass
class KvCacheConfig:
    num_layers: int = 32
    num_kv_heads: int = 8
    head_dim: int = 128
    tokens_per_block: int = 64
    max_primary_blocks: int = 4096
    max_secondary_blocks: int = 16384


class KVCacheManager:
    """Primary pool on the device, secondary pool in pinned host memory. Called from the
    executor loop: ``prepare_resources`` before a forward, ``free_resources`` when a request
    is done (its last forward may still be running), ``update_resources`` after a step."""

    def __init__(self, config: KvCacheConfig, dtype: torch.dtype = torch.float16):
        self.config = config
        block_shape = (config.num_layers, 2, config.tokens_per_block, config.num_kv_heads,
                       config.head_dim)
        self.primary_pool = torch.empty((config.max_primary_blocks, ) + block_shape, dtype=dtype,
                                        device="cuda")
        self.secondary_pool = torch.empty((config.max_secondary_blocks, ) + block_shape,
                                          dtype=dtype, pin_memory=True)
        self.block_bytes = self.primary_pool[0].numel() * self.primary_pool.element_size()
        # the stream the executor runs the engine on, as TensorRT-LLM passes it: a raw handle
        self.stream = torch.cuda.current_stream().cuda_stream
        self.free_primary: List[int] = list(range(config.max_primary_blocks))
        self.free_secondary: List[int] = list(range(config.max_secondary_blocks))
        self.block_tables: Dict[int, List[int]] = {}
        self.reusable: "OrderedDict[int, List[int]]" = OrderedDict()  # request -> secondary blocks
        self.offloading: Dict[int, Tuple[List[int], int]] = {}
        self.transfer_worker = KVCacheTransferWorker(torch.cuda.current_device())
        self.transfer_worker.start()

    def add_sequence(self, request_id: int, num_tokens: int) -> List[int]:
        n = -(-num_tokens // self.config.tokens_per_block)
        blocks = [self.free_primary.pop() for _ in range(n)]
        self.block_tables[request_id] = blocks
        return blocks

    def free_resources(self, request) -> None:
        blocks = self.block_tables.pop(request.py_request_id, [])
        if not blocks or len(self.free_secondary) < len(blocks):
            self.free_primary.extend(blocks)
            return
        secondary = [self.free_secondary.pop() for _ in blocks]
        ready = create_event()
        check_cuda_error(cudart.cudaEventRecord(ready, self.stream))
        base_src = self.primary_pool.data_ptr()
        base_dst = self.secondary_pool.data_ptr()
        req = OffloadRequest(request.py_request_id, blocks, secondary,
                             src_ptrs=[base_src + b * self.block_bytes for b in blocks],
                             dst_ptrs=[base_dst + s * self.block_bytes for s in secondary],
                             block_bytes=self.block_bytes, ready_event=ready)
        self.transfer_worker.submit(req)

    def update_resources(self, scheduled_batch) -> None:
        """Return primary blocks whose offload has landed; keep the secondary copy for reuse."""
        while True:
            try:
                result = self.transfer_worker.results.get_nowait()
            except queue.Empty:
                break
            self.offloading[result.request_id] = (result.primary_blocks, result.done_event)
            self.reusable[result.request_id] = result.secondary_blocks
        for request_id in list(self.offloading):
            primary, done = self.offloading[request_id]
            err, = cudart.cudaEventQuery(done)
            if err == cudart.cudaError_t.cudaErrorNotReady:
                continue
            check_cuda_error((err, ))
            check_cuda_error(cudart.cudaEventDestroy(done))
            self.free_primary.extend(primary)
            del self.offloading[request_id]

    def shutdown(self) -> None:
        self.transfer_worker.shutdown()
