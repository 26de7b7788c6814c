"""ZeRO-Offload (stage 2) gradient path: reduce buckets on a reduction stream, offload the
reduced partition to pinned host memory, and run the CPU optimizer once every copy landed.

Models deepspeed.runtime.zero.stage_1_and_2 with cpu_offload=True and overlap_comm=True.
"""

import torch
import torch.distributed as dist
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.adam import DeepSpeedCPUAdam

from .cpu_grads import _has_inf_or_nan, allocate_cpu_grad_partitions, async_copy_partition


class ZeroOffloadOptimizer:
    def __init__(self, fp32_partitions, bucket_numel, overlap_comm=True):
        self.device = get_accelerator().current_device_name()
        self.fp32_partitions = fp32_partitions
        self.cpu_grads = allocate_cpu_grad_partitions([p.numel() for p in fp32_partitions])
        self.ipg_buffer = torch.empty(bucket_numel, dtype=torch.float16, device=self.device)
        self.ipg_index = 0
        self.ipg_params = []
        self.overlap_comm = overlap_comm
        self.reduction_stream = get_accelerator().Stream()
        self.cpu_adam = DeepSpeedCPUAdam(fp32_partitions)
        self.overflow = False

    def _comm_stream(self):
        if self.overlap_comm:
            return self.reduction_stream
        return get_accelerator().current_stream()

    def reduce_independent_p_g_buckets_and_remove_grads(self, param, partition_id, offset):
        grad = param.grad
        if self.ipg_index + grad.numel() > self.ipg_buffer.numel():
            self.reduce_ipg_grads()
        self.ipg_buffer.narrow(0, self.ipg_index, grad.numel()).copy_(grad.view(-1))
        self.ipg_params.append((partition_id, offset, self.ipg_index, grad.numel()))
        self.ipg_index += grad.numel()
        param.grad = None

    def reduce_ipg_grads(self):
        stream = self._comm_stream()
        if self.overlap_comm:
            stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(stream):
            bucket = self.ipg_buffer.narrow(0, 0, self.ipg_index)
            dist.all_reduce(bucket)
            bucket.div_(dist.get_world_size())
            for partition_id, offset, start, numel in self.ipg_params:
                async_copy_partition(self.cpu_grads[partition_id], bucket.narrow(0, start, numel), offset)
        # The next bucket refills ipg_buffer on the compute stream.
        get_accelerator().current_stream().wait_stream(stream)
        self.ipg_params = []
        self.ipg_index = 0

    def step(self):
        if self.ipg_index > 0:
            self.reduce_ipg_grads()
        # The copies into the pinned partitions must have landed before the host reads them.
        self._comm_stream().synchronize()
        self.overflow = any(_has_inf_or_nan(g) for g in self.cpu_grads)
        if self.overflow:
            return False
        for p, g in zip(self.fp32_partitions, self.cpu_grads):
            p.grad = g
        self.cpu_adam.step()
        return True
