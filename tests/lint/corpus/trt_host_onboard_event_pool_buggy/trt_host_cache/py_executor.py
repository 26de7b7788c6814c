# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""The overlap executor loop: iteration N+1 is scheduled and prepared while iteration N's
forward is still queued; N's finished requests are freed once N+1 has been launched."""

from .resource_manager import HostCachedKVCacheManager, ResourceManager


class PyExecutor:

    def __init__(self, model_engine, scheduler, kv_cache_manager: HostCachedKVCacheManager):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.resource_manager = ResourceManager({"kv_cache_manager": kv_cache_manager})
        self.previous_batch = None

    def _executor_loop_overlap(self):
        while True:
            scheduled_batch = self.scheduler.schedule_request()
            if scheduled_batch is None:
                break
            self.resource_manager.prepare_resources(scheduled_batch)
            self.model_engine.forward(scheduled_batch, self.resource_manager)
            if self.previous_batch is not None:
                for request in self.previous_batch.finished_requests():
                    self.resource_manager.free_resources(request)
            self.previous_batch = scheduled_batch
