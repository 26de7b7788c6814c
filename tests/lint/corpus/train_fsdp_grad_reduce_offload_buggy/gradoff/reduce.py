import torch
import torch.distributed as dist


def shard_buffers(unsharded_grad, world_size):
    chunks = list(unsharded_grad.chunk(world_size))
    pad = world_size * chunks[0].numel() - unsharded_grad.numel()
    padded = torch.nn.functional.pad(unsharded_grad, [0, pad]) if pad > 0 else unsharded_grad
    return padded, torch.empty_like(chunks[0])


def offload_grad(cpu_grad, shard):
    # expect: KVG001
    cpu_grad.copy_(shard.detach(), non_blocking=True)


class GradReducer:
    def __init__(self, world_size, group):
        self.world_size = world_size
        self.group = group
        self.post_backward_stream = torch.cuda.Stream()

    def post_backward(self, flat_param):
        with torch.cuda.stream(self.post_backward_stream):
            unsharded = flat_param.grad.data
            flat_param.grad = None
            padded, shard = shard_buffers(unsharded, self.world_size)
            dist.reduce_scatter_tensor(shard, padded, group=self.group)
            offload_grad(flat_param.cpu_grad, shard)
        unsharded.record_stream(self.post_backward_stream)
