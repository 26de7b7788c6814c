"""Connector for SGLang's MHATokenToKVPool: per-layer K and V buffers of shape
[num_slots, head_num, head_dim], addressed through the request's token slot indices."""

from typing import List

import torch

from lmc.connector_base import GPUConnectorInterface
from lmc.memory import MemoryObj


class SGLangPagedGPUConnector(GPUConnectorInterface):
    def __init__(self, num_layers: int, hidden_dim: int, page_size: int):
        super().__init__(num_layers, hidden_dim)
        self.page_size = page_size

    def _page_runs(self, slots: List[int]):
        """Split a slot list into (first_slot, length) runs of consecutive slots."""
        runs, run_start, prev = [], slots[0], slots[0]
        for s in slots[1:]:
            if s != prev + 1:
                runs.append((run_start, prev - run_start + 1))
                run_start = s
            prev = s
        runs.append((run_start, prev - run_start + 1))
        return runs

    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        k_buffers, v_buffers = kwargs["k_buffers"], kwargs["v_buffers"]
        slots: List[int] = kwargs["slot_list"][start:end]
        out = memory_obj.tensor
        pos = 0
        for first, length in self._page_runs(slots):
            for layer_id in range(self.num_layers):
                k = k_buffers[layer_id][first:first + length].flatten(1)
                v = v_buffers[layer_id][first:first + length].flatten(1)
                out[0, layer_id, pos:pos + length].copy_(k, non_blocking=True)
                out[1, layer_id, pos:pos + length].copy_(v, non_blocking=True)
            pos += length

    def batched_from_gpu(self, memory_objs: List[MemoryObj], starts: List[int],
                         ends: List[int], **kwargs) -> None:
        # one pass over the layers for all chunks: the slot runs of neighbouring chunks
        # are usually contiguous, so merge them into one copy per layer
        k_buffers, v_buffers = kwargs["k_buffers"], kwargs["v_buffers"]
        slots: List[int] = kwargs["slot_list"]
        with torch.cuda.stream(self.store_stream):
            for layer_id in range(self.num_layers):
                k_layer, v_layer = k_buffers[layer_id], v_buffers[layer_id]
                for memory_obj, start, end in zip(memory_objs, starts, ends):
                    out = memory_obj.tensor
                    pos = 0
                    for first, length in self._page_runs(slots[start:end]):
                        # expect: KVG001
                        out[0, layer_id, pos:pos + length].copy_(
                            k_layer[first:first + length].flatten(1), non_blocking=True)
                        # expect: KVG001
                        out[1, layer_id, pos:pos + length].copy_(
                            v_layer[first:first + length].flatten(1), non_blocking=True)
                        pos += length
        self.store_stream.synchronize()
