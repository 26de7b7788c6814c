# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import torch

from tensorrt_llm._torch.pyexecutor.kv_cache_connector import KvCacheConnectorWorker
from tensorrt_llm.llmapi.llm_args import TorchLlmArgs
from tensorrt_llm.logger import logger

from .config import HostOffloadConfig
from .streams import get_offload_stream
from .transfer import BlockPair, LayerSaveJob, copy_blocks_d2h, run_layer_save


@dataclass
class HostOffloadMetadata:
    # Full blocks written during this forward pass, saved layer by layer.
    save_pairs: List[BlockPair] = field(default_factory=list)
    # Trailing blocks of requests that finished in this forward pass.
    partial_pairs: List[BlockPair] = field(default_factory=list)
    saving_request_ids: List[int] = field(default_factory=list)


class HostOffloadConnectorWorker(KvCacheConnectorWorker):

    def __init__(self, llm_args: TorchLlmArgs, config: Optional[HostOffloadConfig] = None,
                 device: Optional[int] = None):
        super().__init__(llm_args)
        config = config or HostOffloadConfig.from_env()
        self._config = config
        self._offload_stream = get_offload_stream(device, config.offload_stream_priority)
        self._executor = ThreadPoolExecutor(max_workers=config.max_offload_workers,
                                            thread_name_prefix="kv_host_offload")
        self._kv_cache: Optional[torch.Tensor] = None
        self._host_pool: Optional[torch.Tensor] = None
        self._pending_saves: List[int] = []
        self._layer_futures: Dict[int, List[Future]] = defaultdict(list)
        self._tail_events: Dict[int, torch.cuda.Event] = {}

    def register_kv_caches(self, kv_cache_tensor: torch.Tensor):
        # kv_cache_tensor: [num_layers, num_blocks, 2, tokens_per_block, ...]
        self._kv_cache = kv_cache_tensor
        host_shape = (kv_cache_tensor.shape[0], self._config.num_host_blocks,
                      *kv_cache_tensor.shape[2:])
        self._host_pool = torch.empty(host_shape, dtype=kv_cache_tensor.dtype,
                                      device="cpu", pin_memory=True)
        logger.info(f"host KV pool: {self._host_pool.numel() * self._host_pool.element_size() >> 20} MiB")

    def start_load_kv(self, stream: torch.cuda.Stream):
        pass

    def wait_for_layer_load(self, layer_idx: int, stream: torch.cuda.Stream):
        pass

    def save_kv_layer(self, layer_idx: int, stream: torch.cuda.Stream):
        meta = self.get_connector_meta()
        if meta is None or not meta.save_pairs:
            return
        ready = torch.cuda.Event()
        ready.record(stream)
        job = LayerSaveJob(layer_idx, list(meta.save_pairs), ready)
        fut = self._executor.submit(run_layer_save, job, self._host_pool, self._kv_cache,
                                    self._offload_stream)
        for req_id in meta.saving_request_ids:
            self._layer_futures[req_id].append(fut)

    def wait_for_save(self, stream: torch.cuda.Stream):
        meta = self.get_connector_meta()
        self._clear_connector_meta()
        if meta is None or not meta.partial_pairs or not self._config.flush_partial_blocks:
            return
        for layer_idx in range(self._kv_cache.shape[0]):
            copy_blocks_d2h(self._host_pool[layer_idx], self._kv_cache[layer_idx],
                            meta.partial_pairs, self._offload_stream)
        tail_done = torch.cuda.Event()
        tail_done.record(self._offload_stream)
        for req_id in meta.saving_request_ids:
            self._tail_events[req_id] = tail_done

    def get_finished(self, finished_gen_req_ids: List[int],
                     started_loading_req_ids: List[int]) -> Tuple[List[int], List[int]]:
        self._pending_saves.extend(finished_gen_req_ids)
        finished_saving = []
        for req_id in list(self._pending_saves):
            futures = self._layer_futures.get(req_id, [])
            if not all(f.done() and f.result().done_event.query() for f in futures):
                continue
            tail = self._tail_events.get(req_id)
            if tail is not None and not tail.query():
                continue
            self._layer_futures.pop(req_id, None)
            self._tail_events.pop(req_id, None)
            self._pending_saves.remove(req_id)
            finished_saving.append(req_id)
        return finished_saving, list(started_loading_req_ids)
