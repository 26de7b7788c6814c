# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
"""The engine loop and its suspend / resume around training."""

import asyncio
import logging

import torch

from .config import KVCacheManagementMode
from .dynamic_context import DynamicInferenceContext

logger = logging.getLogger(__name__)


class DynamicInferenceEngine:

    def __init__(self, controller, config):
        self.controller = controller
        self.config = config
        self.context = DynamicInferenceContext(config)
        self.kv_mode = config.kv_cache_management_mode
        self._offload_stream = torch.cuda.Stream()
        self._suspended = False
        self.step_count = 0

    async def async_step(self):
        """One forward over the active requests; the model appends to the KV memory."""
        result = self.controller.generate_output_tokens_dynamic_batch(self.context)
        self.step_count += 1
        # let other coroutines (request intake, coordinator) run between steps
        await asyncio.sleep(0)
        return result

    async def _wait_on_stream(self, stream, poll_s=0.0005):
        done = stream.record_event()
        while not done.query():
            await asyncio.sleep(poll_s)

    async def _offload_kv(self):
        # the last step's attention kernels are still appending to the KV memory
        self._offload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._offload_stream):
            self.context.copy_kv_to_host()
        await self._wait_on_stream(self._offload_stream)

    async def _onload_kv(self):
        self._offload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._offload_stream):
            self.context.copy_kv_from_host()
        torch.cuda.current_stream().wait_stream(self._offload_stream)

    async def async_suspend(self):
        if self._suspended:
            return
        if self.kv_mode == KVCacheManagementMode.OFFLOAD:
            await self._offload_kv()
        if self.kv_mode != KVCacheManagementMode.PERSIST:
            self.context.deallocate_all_tensors()
            torch.cuda.empty_cache()
        self._suspended = True
        logger.info("engine suspended after %d steps (kv mode %s)", self.step_count, self.kv_mode.value)

    async def async_resume(self):
        if not self._suspended:
            return
        if self.kv_mode != KVCacheManagementMode.PERSIST:
            self.context.allocate_all_tensors()
        if self.kv_mode == KVCacheManagementMode.OFFLOAD:
            await self._onload_kv()
        elif self.kv_mode == KVCacheManagementMode.RECOMPUTE:
            self.controller.mark_requests_for_recompute(self.context)
        self._suspended = False

    async def run_rollout(self, num_steps):
        await self.async_resume()
        outputs = []
        for _ in range(num_steps):
            outputs.append(await self.async_step())
        await self.async_suspend()
        return outputs
