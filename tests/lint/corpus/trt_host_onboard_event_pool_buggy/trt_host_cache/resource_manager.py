# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Resource managers of the PyTorch executor (the shape of pyexecutor.resource_manager):
every manager prepares the scheduled batch before its forward and frees what finished
requests held."""

from abc import ABC, abstractmethod
from typing import Dict, List

import torch

from .block_pools import BlockPool
from .event_pool import CudaEventPool
from .onboarder import HostCacheOnboarder


class BaseResourceManager(ABC):

    @abstractmethod
    def prepare_resources(self, scheduled_batch) -> None:
        ...

    @abstractmethod
    def free_resources(self, request) -> None:
        ...


class HostCachedKVCacheManager(BaseResourceManager):

    def __init__(self, num_primary, num_secondary, num_layers, tokens_per_block, num_kv_heads, head_dim,
                 dtype=torch.float16):
        self.primary = BlockPool(num_primary, num_layers, tokens_per_block, num_kv_heads, head_dim, dtype,
                                 device="cuda")
        self.secondary = BlockPool(num_secondary, num_layers, tokens_per_block, num_kv_heads, head_dim, dtype,
                                   device="cpu")
        self.event_pool = CudaEventPool()
        self.onboarder = HostCacheOnboarder(self.primary, self.secondary, self.event_pool)
        self.host_cached: Dict[int, int] = {}  # block hash -> secondary block
        self.request_blocks: Dict[int, List[int]] = {}

    def prepare_resources(self, scheduled_batch) -> None:
        pairs = []
        for request in scheduled_batch.context_requests:
            blocks = []
            for block_hash in request.block_hashes:
                primary_block = self.primary.allocate()
                secondary_block = self.host_cached.get(block_hash)
                if secondary_block is not None:
                    pairs.append((secondary_block, primary_block))
                blocks.append(primary_block)
            self.request_blocks[request.py_request_id] = blocks
        for request in scheduled_batch.generation_requests:
            if request.needs_new_block:
                self.request_blocks[request.py_request_id].append(self.primary.allocate())
        if pairs:
            handle = self.onboarder.onboard(pairs)
            # the forward reads the onboarded blocks
            handle.make_stream_wait(torch.cuda.current_stream())
            self.event_pool.release(handle.event)

    def free_resources(self, request) -> None:
        for block_id in self.request_blocks.pop(request.py_request_id, []):
            self.primary.release(block_id)


class ResourceManager:
    """Registry of the executor's resource managers, prepared in registration order."""

    def __init__(self, managers: Dict[str, BaseResourceManager]):
        self.managers = dict(managers)

    def get_resource_manager(self, name) -> BaseResourceManager:
        return self.managers[name]

    def prepare_resources(self, scheduled_batch) -> None:
        for manager in self.managers.values():
            manager.prepare_resources(scheduled_batch)

    def free_resources(self, request) -> None:
        for manager in reversed(list(self.managers.values())):
            manager.free_resources(request)
