"""Fine-grained activation offloading in the shape of Megatron-core's PipelineOffloadManager:
tensors saved for backward inside an offloaded module are copied to pinned host memory from
the pack hook, and copied back into pooled device buffers from the unpack hook.
"""

import torch

from .tensor_pool import TensorPool


class ChunkOffloadHandler:
    def __init__(self, num_layers, min_offload_numel=1 << 16):
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.offload_done = [torch.cuda.Event() for _ in range(num_layers)]
        self.layer_start = [torch.cuda.Event() for _ in range(num_layers)]
        self.reloaded = [[] for _ in range(num_layers)]
        self.pool = TensorPool()
        self.min_offload_numel = min_offload_numel
        self.cur_layer = 0

    def on_layer_start(self, layer_idx):
        self.cur_layer = layer_idx
        self.layer_start[layer_idx].record()

    def pack(self, tensor):
        if not tensor.is_cuda or tensor.numel() < self.min_offload_numel:
            return tensor
        cpu_backup = torch.empty(tensor.size(), dtype=tensor.dtype, pin_memory=True)
        # The tensor may have been produced by any kernel of this module so far.
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            cpu_backup.copy_(tensor, non_blocking=True)
            tensor.record_stream(self.d2h_stream)
        self.offload_done[self.cur_layer].record(self.d2h_stream)
        return (self.cur_layer, cpu_backup)

    def unpack(self, packed):
        if torch.is_tensor(packed):
            return packed
        layer_idx, cpu_backup = packed
        buf = self.pool.acquire(cpu_backup.shape, cpu_backup.dtype)
        self.h2d_stream.wait_event(self.offload_done[layer_idx])
        # A pooled buffer may still be read by backward kernels of the layer that released it.
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.h2d_stream):
            buf.copy_(cpu_backup, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.h2d_stream)
        self.reloaded[layer_idx].append(buf)
        return buf

    def on_layer_backward_done(self, layer_idx):
        for buf in self.reloaded[layer_idx]:
            self.pool.release(buf)
        self.reloaded[layer_idx] = []


class PipelineOffloadManager:
    _instance = None

    @classmethod
    def get_instance(cls, num_layers=None):
        if cls._instance is None:
            cls._instance = cls(num_layers)
        return cls._instance

    def __init__(self, num_layers):
        self.handler = ChunkOffloadHandler(num_layers)

    def saved_tensors_hooks(self):
        return torch.autograd.graph.saved_tensors_hooks(self.handler.pack, self.handler.unpack)
