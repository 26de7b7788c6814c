# SPDX-License-Identifier: Apache-2.0
import logging
from typing import Generator, List

import cupy
import torch

from lmcache_cp.config import LayerwiseRetrieveConfig
from lmcache_cp.cuda_streams import current_compute_stream, get_load_stream
from lmcache_cp.memory import MemoryObj

logger = logging.getLogger(__name__)


class CupyBufferLayerwiseGPUConnector:
    """Layer-wise retrieve through a ring of GPU staging buffers.

    Layer i is uploaded into buffer i % num_buffers on the load stream while
    the compute stream scatters layer i - 1 from its buffer into paged KV.
    """

    def __init__(self, config: LayerwiseRetrieveConfig, device: torch.device):
        self.num_layers = config.num_layers
        self.num_buffers = config.num_buffers
        self.load_stream = get_load_stream(device.index)
        self._buffers = [
            torch.empty((config.max_tokens, 2, config.hidden_dim), dtype=config.kv_dtype, device=device)
            for _ in range(self.num_buffers)
        ]
        with cupy.cuda.Device(device.index):
            self._buffer_views = [cupy.asarray(buf) for buf in self._buffers]
            self._loaded = [cupy.cuda.Event(disable_timing=True) for _ in range(self.num_buffers)]
            self._consumed = [cupy.cuda.Event(disable_timing=True) for _ in range(self.num_buffers)]

    @staticmethod
    def _scatter(kv_layer: torch.Tensor, staged: torch.Tensor, slots: torch.Tensor) -> None:
        # kv_layer: [2, num_blocks, block_size, num_heads, head_size]
        flat = kv_layer.view(2, -1, staged.shape[-1])
        flat[0].index_copy_(0, slots, staged[:, 0])
        flat[1].index_copy_(0, slots, staged[:, 1])

    def batched_to_gpu(self, memory_objs: List[List[MemoryObj]], starts: List[int],
                       ends: List[int], **kwargs) -> Generator[None, None, None]:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        compute = current_compute_stream()
        num_tokens = ends[-1]

        for layer_id in range(self.num_layers + 1):
            if layer_id < self.num_layers:
                idx = layer_id % self.num_buffers
                view = self._buffer_views[idx]
                if layer_id >= self.num_buffers:
                    self.load_stream.wait_event(self._consumed[idx])
                for mem_obj, start, end in zip(memory_objs[layer_id], starts, ends):
                    # expect: KVG004
                    view[start:end].set(mem_obj.array, stream=self.load_stream)
                self._loaded[idx].record(self.load_stream)
            if layer_id > 0:
                prev = (layer_id - 1) % self.num_buffers
                compute.wait_event(self._loaded[prev])
                self._scatter(kvcaches[layer_id - 1], self._buffers[prev][:num_tokens], slot_mapping)
                self._consumed[prev].record(compute)
            yield
