# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Disaggregated serving: the context instance gathers a finished prefill's KV blocks into
pinned staging memory and sends it; the generation instance receives it into pinned staging
memory and scatters it into the blocks it allocated. Both directions are one batched driver
copy per request on the transceiver's stream.

Bug: the sender asks for DURING_API_CALL source order, on the belief that the blocks are
complete when ``respond_and_send_async`` runs. They are complete only in stream order: the
copy stream waits on the event recorded after the context forward, but with DURING_API_CALL
the driver may read the device blocks while the call is made, before that wait is
satisfied, so the staged KV can be a half written prefill."""

import queue
from abc import ABC, abstractmethod
from concurrent.futures import Future
from typing import Dict, List

import torch

from .cuda_driver import SrcAccessOrder, batch_copy
from .send_worker import SendJob, SendWorker

TRANSCEIVER_BACKENDS = {}


def register_backend(name):
    def wrap(cls):
        TRANSCEIVER_BACKENDS[name] = cls
        return cls
    return wrap


def create_kv_cache_transceiver(config, kv_cache_manager, connection):
    backend = TRANSCEIVER_BACKENDS[config.backend]
    return backend(kv_cache_manager, connection, config.max_staging_blocks)


class KvCacheTransceiverBase(ABC):

    @abstractmethod
    def respond_and_send_async(self, request) -> None:
        ...

    @abstractmethod
    def scatter_received(self, request, blocks: List[int]) -> None:
        ...

    @abstractmethod
    def check_context_transfer_status(self) -> List[int]:
        ...


@register_backend("staging")
class StagingKvCacheTransceiver(KvCacheTransceiverBase):
    # the context forward of a request has been issued before its KV is sent
    SEND_ORDER = SrcAccessOrder.DURING_API_CALL
    # pinned staging that only the host writes
    RECV_ORDER = SrcAccessOrder.ANY
    NUM_SEND_SLOTS = 4

    def __init__(self, kv_cache_manager, connection, max_staging_blocks):
        self.kv_cache_manager = kv_cache_manager
        pool = kv_cache_manager.primary_pool
        self.block_bytes = pool.stride(0) * pool.element_size()
        self.pool_base = pool.data_ptr()
        # a few send slots, so that staging the next request does not wait for the network
        self.free_slots: "queue.Queue[torch.Tensor]" = queue.Queue()
        for _ in range(self.NUM_SEND_SLOTS):
            self.free_slots.put(torch.empty(max_staging_blocks * self.block_bytes, dtype=torch.uint8, device="cpu",
                                            pin_memory=True))
        # filled by the connection's receive thread before it reports a request complete
        self.recv_staging = torch.empty(max_staging_blocks * self.block_bytes, dtype=torch.uint8, device="cpu",
                                        pin_memory=True)
        self.recv_consumed = torch.cuda.Event()
        self.stream = torch.cuda.Stream()
        self.sender = SendWorker(connection, self.free_slots)
        self.sender.start()
        self.pending: Dict[int, Future] = {}

    def _block_ptrs(self, blocks: List[int]) -> List[int]:
        return [self.pool_base + b * self.block_bytes for b in blocks]

    def respond_and_send_async(self, request) -> None:
        blocks = self.kv_cache_manager.get_cache_block_ids(request.py_request_id)
        slot = self.free_slots.get()
        staging = slot[:len(blocks) * self.block_bytes]
        forward_done = torch.cuda.Event()
        forward_done.record()
        self.stream.wait_event(forward_done)
        dst = [staging.data_ptr() + i * self.block_bytes for i in range(len(blocks))]
        batch_copy(dst, self._block_ptrs(blocks), [self.block_bytes] * len(blocks), self.SEND_ORDER, self.stream)
        staged = torch.cuda.Event()
        staged.record(self.stream)
        future = Future()
        self.pending[request.py_request_id] = future
        self.sender.submit(SendJob(request.py_request_id, slot, staging, staged, future))

    def scatter_received(self, request, blocks: List[int]) -> None:
        staging = self.recv_staging[:len(blocks) * self.block_bytes]
        # the blocks were just taken off the free list: older forwards may still read them
        self.stream.wait_stream(torch.cuda.current_stream())
        src = [staging.data_ptr() + i * self.block_bytes for i in range(len(blocks))]
        batch_copy(self._block_ptrs(blocks), src, [self.block_bytes] * len(blocks), self.RECV_ORDER, self.stream)
        self.recv_consumed.record(self.stream)
        torch.cuda.current_stream().wait_stream(self.stream)

    def wait_recv_staging_free(self) -> None:
        """Called by the receive thread before it writes the next request into recv_staging."""
        self.recv_consumed.synchronize()

    def check_context_transfer_status(self) -> List[int]:
        done = [rid for rid, fut in self.pending.items() if fut.done()]
        for rid in done:
            self.pending.pop(rid).result()
        return done
