# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

import logging
from typing import Dict, List

import torch

from . import cudart
from .chunk_allocator import ChunkAllocator
from .config import DynamicInferenceConfig

logger = logging.getLogger(__name__)


class DynamicInferenceContext:
    """Inference context with chunked KV memory; paused requests are swapped to host memory."""

    def __init__(self, config: DynamicInferenceConfig):
        self.config = config
        self.chunk_size_tokens = config.chunk_size_tokens
        self.memory_buffer = torch.empty(
            (config.max_chunks, 2, config.num_layers, config.chunk_size_tokens,
             config.num_attention_heads_per_partition, config.head_dim),
            dtype=config.params_dtype, device=torch.cuda.current_device())
        self.chunk_allocator = ChunkAllocator(config.max_chunks)
        self.host_chunk_allocator = ChunkAllocator(config.num_host_chunks)
        self.host_memory_buffer = torch.empty(
            (config.num_host_chunks, ) + tuple(self.memory_buffer.shape[1:]),
            dtype=config.params_dtype, pin_memory=True)
        self.request_query_lengths = torch.zeros(config.max_requests, dtype=torch.int32, device="cuda")
        self.request_to_chunks: Dict[int, List[int]] = {}
        self.request_to_host_chunks: Dict[int, List[int]] = {}
        self.paused_request_ids: List[int] = []

        self._swap_stream = cudart.stream_create()
        self._compute_ready = cudart.event_create()
        self._swap_done = cudart.event_create()
        self._swap_ordered = False

    def _order_swap_after_compute(self) -> None:
        if self._swap_ordered:
            return
        cudart.event_record(self._compute_ready, torch.cuda.current_stream().cuda_stream)
        cudart.stream_wait_event(self._swap_stream, self._compute_ready)
        self._swap_ordered = True

    def _chunk_bytes(self) -> int:
        chunk = self.memory_buffer[0]
        return chunk.numel() * chunk.element_size()

    def pause_and_offload(self, request_ids: List[int]) -> None:
        if not request_ids:
            return
        self._order_swap_after_compute()
        nbytes = self._chunk_bytes()
        for request_id in request_ids:
            gpu_chunks = self.request_to_chunks.pop(request_id)
            host_chunks = self.host_chunk_allocator.allocate_chunks(len(gpu_chunks))
            for gpu_chunk, host_chunk in zip(gpu_chunks, host_chunks):
                # expect: KVG001
                cudart.memcpy_d2h_async(self.host_memory_buffer[host_chunk].data_ptr(),
                                        self.memory_buffer[gpu_chunk].data_ptr(), nbytes, self._swap_stream)
            self.request_to_host_chunks[request_id] = host_chunks
            self.chunk_allocator.release_chunks(gpu_chunks)
            self.paused_request_ids.append(request_id)
        cudart.event_record(self._swap_done, self._swap_stream)
        cudart.stream_wait_event(torch.cuda.current_stream().cuda_stream, self._swap_done)

    def release_finished_requests(self, request_ids: List[int]) -> None:
        for request_id in request_ids:
            self.chunk_allocator.release_chunks(self.request_to_chunks.pop(request_id))

    def resume_requests(self, max_resume: int) -> List[int]:
        resumed: List[int] = []
        nbytes = self._chunk_bytes()
        self._order_swap_after_compute()
        while self.paused_request_ids and len(resumed) < max_resume:
            request_id = self.paused_request_ids[0]
            host_chunks = self.request_to_host_chunks[request_id]
            if len(host_chunks) > self.chunk_allocator.avail_count:
                break
            self.paused_request_ids.pop(0)
            gpu_chunks = self.chunk_allocator.allocate_chunks(len(host_chunks))
            for gpu_chunk, host_chunk in zip(gpu_chunks, host_chunks):
                # expect: KVG004
                cudart.memcpy_h2d_async(self.memory_buffer[gpu_chunk].data_ptr(),
                                        self.host_memory_buffer[host_chunk].data_ptr(), nbytes, self._swap_stream)
            self.request_to_chunks[request_id] = gpu_chunks
            resumed.append(request_id)
        cudart.event_record(self._swap_done, self._swap_stream)
        cudart.stream_wait_event(torch.cuda.current_stream().cuda_stream, self._swap_done)
        cudart.stream_synchronize(self._swap_stream)
        for request_id in resumed:
            self.host_chunk_allocator.release_chunks(self.request_to_host_chunks.pop(request_id))
        return resumed

    def active_query_lengths(self, num_active: int) -> List[int]:
        lengths = self.request_query_lengths[:num_active].to("cpu", non_blocking=True)
        torch.cuda.current_stream().synchronize()
        return lengths.tolist()

    def reset(self) -> None:
        self.request_to_chunks.clear()
        self.request_to_host_chunks.clear()
        self.paused_request_ids.clear()
        self.chunk_allocator = ChunkAllocator(self.config.max_chunks)
        self.host_chunk_allocator = ChunkAllocator(self.config.num_host_chunks)
        self._swap_ordered = False
