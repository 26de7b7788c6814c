# Copyright 2022 The HuggingFace Team. All rights reserved.

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List

import cupy
import cupyx
import numpy as np
import torch

from .offload import OffloadedWeightsLoader

logger = logging.getLogger(__name__)

NUM_SLOTS = 2


class CupyWeightStreamer:
    """Streams offloaded layer weights into two reusable device slots on a cupy copy stream."""

    def __init__(self, weights_map: OffloadedWeightsLoader, layer_param_names: List[List[str]],
                 dtype=np.float16):
        self.weights_map = weights_map
        self.layer_param_names = layer_param_names
        self.num_layers = len(layer_param_names)
        self.slot_numel = max(sum(weights_map.numel(n) for n in names) for names in layer_param_names)
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.slots = [cupy.empty(self.slot_numel, dtype=dtype) for _ in range(NUM_SLOTS)]
        self.staging = [cupyx.empty_pinned((self.slot_numel, ), dtype=dtype) for _ in range(NUM_SLOTS)]
        self.ready_events = [cupy.cuda.Event(disable_timing=True) for _ in range(NUM_SLOTS)]
        self.free_events = []
        for _ in range(NUM_SLOTS):
            event = cupy.cuda.Event(disable_timing=True)
            event.record(self._compute_stream())
            self.free_events.append(event)
        self.loaded_layer = [-1] * NUM_SLOTS
        self.writeback_staging: Dict[str, np.ndarray] = {}
        self.pending_flushes: Dict[str, Future] = {}
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="offload_writeback")

    @staticmethod
    def _compute_stream() -> cupy.cuda.ExternalStream:
        return cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

    def prefetch(self, layer_idx: int) -> None:
        if layer_idx >= self.num_layers:
            return
        slot = layer_idx % NUM_SLOTS
        if self.loaded_layer[slot] == layer_idx:
            return
        self.ready_events[slot].synchronize()
        staging, offset = self.staging[slot], 0
        for name in self.layer_param_names[layer_idx]:
            weight = self.weights_map[name]
            np.copyto(staging[offset:offset + weight.size], weight.ravel())
            offset += weight.size
        self.stream.wait_event(self.free_events[slot])
        self.slots[slot][:offset].set(staging[:offset], stream=self.stream)
        self.ready_events[slot].record(self.stream)
        self.loaded_layer[slot] = layer_idx

    def device_views(self, layer_idx: int) -> Dict[str, torch.Tensor]:
        slot = layer_idx % NUM_SLOTS
        if self.loaded_layer[slot] != layer_idx:
            self.prefetch(layer_idx)
        self._compute_stream().wait_event(self.ready_events[slot])
        flat = torch.from_dlpack(self.slots[slot])
        views, offset = {}, 0
        for name in self.layer_param_names[layer_idx]:
            info = self.weights_map.index[name]
            n = self.weights_map.numel(name)
            views[name] = flat[offset:offset + n].view(info["shape"])
            offset += n
        return views

    def mark_released(self, layer_idx: int) -> None:
        event = cupy.cuda.Event(disable_timing=True)
        event.record(self._compute_stream())
        self.free_events[layer_idx % NUM_SLOTS] = event

    def _flush(self, name: str, host: np.ndarray, done: cupy.cuda.Event) -> None:
        done.synchronize()
        self.weights_map.write_back(name, host)

    def writeback(self, name: str, tensor: torch.Tensor) -> Future:
        if name not in self.writeback_staging:
            self.writeback_staging[name] = cupyx.empty_pinned((tensor.numel(), ), dtype=np.float16)
        if name in self.pending_flushes:
            self.pending_flushes.pop(name).result()
        host = self.writeback_staging[name]
        src = cupy.from_dlpack(tensor.detach().reshape(-1))
        produced = cupy.cuda.Event(disable_timing=True)
        produced.record(self._compute_stream())
        self.stream.wait_event(produced)
        src.get(stream=self.stream, out=host, blocking=False)
        done = cupy.cuda.Event(disable_timing=True)
        done.record(self.stream)
        future = self.writer.submit(self._flush, name, host, done)
        self.pending_flushes[name] = future
        return future
