"""Contiguous per-bucket parameter / gradient storage used by the distributed optimizer."""
from dataclasses import dataclass
from typing import List, Optional

import torch
import torch.distributed as dist


def shard_buffer(buffer: torch.Tensor, data_parallel_world_size: int) -> List[torch.Tensor]:
    assert buffer.numel() % data_parallel_world_size == 0
    shard_size = buffer.numel() // data_parallel_world_size
    return [buffer[r * shard_size:(r + 1) * shard_size] for r in range(data_parallel_world_size)]


@dataclass
class ParamAndGradBucket:
    index: int
    param_data: torch.Tensor
    grad_data: torch.Tensor
    gradient_scaling_factor: float
    param_shard: Optional[torch.Tensor] = None
    grad_shard: Optional[torch.Tensor] = None
    grad_reduced: Optional[torch.cuda.Event] = None


class ParamAndGradBucketGroup:

    def __init__(self, buckets: List[ParamAndGradBucket], data_parallel_group):
        self.buckets = buckets
        self.data_parallel_group = data_parallel_group
        self.dp_rank = dist.get_rank(data_parallel_group)
        self.dp_size = dist.get_world_size(data_parallel_group)
        self._handles = []
        for bucket in buckets:
            bucket.param_shard = shard_buffer(bucket.param_data, self.dp_size)[self.dp_rank]
            bucket.grad_shard = shard_buffer(bucket.grad_data, self.dp_size)[self.dp_rank]

    def start_grad_sync(self) -> None:
        for bucket in self.buckets:
            if bucket.gradient_scaling_factor != 1.0:
                bucket.grad_data *= bucket.gradient_scaling_factor
            handle = dist.reduce_scatter_tensor(
                bucket.grad_shard, bucket.grad_data, group=self.data_parallel_group, async_op=True
            )
            self._handles.append(handle)

    def finish_grad_sync(self) -> None:
        if not self._handles:
            self.start_grad_sync()
        for bucket, handle in zip(self.buckets, self._handles):
            handle.wait()
            bucket.grad_reduced = torch.cuda.Event()
            bucket.grad_reduced.record()
        self._handles.clear()

    def start_param_sync(self) -> None:
        for bucket in self.buckets:
            dist.all_gather_into_tensor(bucket.param_data, bucket.param_shard, group=self.data_parallel_group)

    def zero_grad_buffer(self) -> None:
        for bucket in self.buckets:
            bucket.grad_data.zero_()
