from __future__ import annotations

import logging
from typing import List

import numpy as np
import torch

from hiradix.constants import INLINE_LOAD_MAX_TOKENS, NUM_LAYER_COUNTERS
from hiradix.host_pool import MHATokenToKVPoolHost
from hiradix.layer_counter import LayerDoneCounter, device_module

logger = logging.getLogger(__name__)


def _to_runs(host_indices: np.ndarray, device_indices: np.ndarray) -> list[tuple[int, int, int]]:
    runs: list[tuple[int, int, int]] = []
    start = 0
    for i in range(1, len(host_indices) + 1):
        if (
            i < len(host_indices)
            and host_indices[i] == host_indices[i - 1] + 1
            and device_indices[i] == device_indices[i - 1] + 1
        ):
            continue
        runs.append((int(host_indices[start]), int(device_indices[start]), i - start))
        start = i
    return runs


class LoadOperation:
    def __init__(self, host_indices: np.ndarray, device_indices: np.ndarray, node_id: int):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_id = node_id


class HiCacheController:
    def __init__(self, mem_pool_device, mem_pool_host: MHATokenToKVPoolHost):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.layer_num = mem_pool_device.layer_num
        self.layer_done_counter = LayerDoneCounter(self.layer_num, NUM_LAYER_COUNTERS)
        mem_pool_device.register_layer_transfer_counter(self.layer_done_counter)

        self.load_stream = device_module.Stream()
        self.load_queue: List[LoadOperation] = []

    def load(self, host_indices: np.ndarray, device_indices: np.ndarray, node_id: int) -> None:
        op = LoadOperation(host_indices, device_indices, node_id)
        if len(host_indices) <= INLINE_LOAD_MAX_TOKENS:
            self._load_inline(op)
        else:
            self.load_queue.append(op)

    def _load_inline(self, op: LoadOperation) -> None:
        runs = _to_runs(op.host_indices, op.device_indices)
        with device_module.stream(self.load_stream):
            self.mem_pool_host.load_to_device_all_layer(self.mem_pool_device, runs)
        self.load_stream.synchronize()
        logger.debug("HiCache inline load: %d tokens", len(op.host_indices))

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        host_indices = np.concatenate([op.host_indices for op in self.load_queue])
        device_indices = np.concatenate([op.device_indices for op in self.load_queue])
        self.load_queue.clear()
        runs = _to_runs(host_indices, device_indices)

        producer_id = self.layer_done_counter.update_producer()
        producer_event = self.layer_done_counter.events[producer_id]
        producer_event.start_event.record()
        with device_module.stream(self.load_stream):
            producer_event.start_event.wait(self.load_stream)
            for i in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(self.mem_pool_device, runs, i)
                producer_event.complete(i)
        return producer_id
