"""One flat parameter with CPU offload (FSDP's offload_params=True): the local shard and
its gradient live in pinned host memory; the shard is loaded and all-gathered before
forward, and the reduced gradient is offloaded from the post-backward stream."""

import torch
import torch.distributed as dist


class FlatParamHandle:
    def __init__(self, flat_param, world_size, rank, streams):
        self.flat_param = flat_param
        self.world_size = world_size
        self.shard_numel = flat_param.numel() // world_size
        start = rank * self.shard_numel
        host = flat_param.detach().narrow(0, start, self.shard_numel).cpu()
        self.local_shard = host.pin_memory()
        self.cpu_grad = torch.zeros(self.shard_numel, dtype=flat_param.dtype, pin_memory=True)
        self.streams = streams
        self.unshard_done = torch.cuda.Event()

    def unshard(self):
        stream = self.streams.unshard
        with torch.cuda.stream(stream):
            shard = torch.empty(self.shard_numel, dtype=self.local_shard.dtype, device="cuda")
            shard.copy_(self.local_shard, non_blocking=True)
            full = torch.empty(self.flat_param.numel(), dtype=shard.dtype, device="cuda")
            dist.all_gather_into_tensor(full, shard)
            self.unshard_done.record()
        compute = torch.cuda.current_stream()
        compute.wait_event(self.unshard_done)
        full.record_stream(compute)
        self.flat_param.data = full

    def post_backward(self):
        grad = self.flat_param.grad
        stream = self.streams.post_backward
        with torch.cuda.stream(stream):
            if self.world_size > 1:
                sharded = torch.empty(self.shard_numel, dtype=grad.dtype, device=grad.device)
                dist.reduce_scatter_tensor(sharded, grad)
            else:
                sharded = grad
            # expect: KVG001
            self.cpu_grad.copy_(sharded, non_blocking=True)
        grad.record_stream(stream)
        self.flat_param.grad = None
