"""The slice of a ZeRO-3 optimizer that offloads fp32 gradient partitions to NVMe.

After the reduce-scatter of a bucket, this rank's fp16 gradient partitions are upcast into a
device staging buffer and handed to the gradient swapper, which packs them into pinned
buffers and writes them to the swap folder while backward goes on.
"""
import os

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder

from .async_swapper import AsyncTensorSwapper
from .swap_utils import allocate_pinned_swap_buffers


class NVMeGradientOffload:
    def __init__(self, aio_config, swap_folder, partition_numels, buffer_count=4, buffer_numel=1 << 24):
        self.swap_folder = swap_folder
        os.makedirs(swap_folder, exist_ok=True)
        self.partition_numels = partition_numels
        self.device = get_accelerator().current_device_name()
        self.aio_handle = AsyncIOBuilder().load().aio_handle(
            aio_config["block_size"],
            aio_config["queue_depth"],
            aio_config["single_submit"],
            aio_config["overlap_events"],
            aio_config["thread_count"],
        )
        self.gradient_swapper = AsyncTensorSwapper(self.aio_handle, numel_alignment=1024)
        self.gradient_swapper.add_buffers(allocate_pinned_swap_buffers(buffer_count, buffer_numel))
        self.fp32_grad_staging = torch.empty(sum(partition_numels), dtype=torch.float32, device=self.device)
        self.offsets = [sum(partition_numels[:i]) for i in range(len(partition_numels))]

    def _grad_path(self, sub_group_id):
        return os.path.join(self.swap_folder, f"grad_{sub_group_id}.tensor.swp")

    def partition_grads(self, sub_group_ids, grad_partitions):
        """Called after each reduce-scatter with this rank's fp16 gradient partitions."""
        tensors, paths = [], []
        for sub_group_id, grad in zip(sub_group_ids, grad_partitions):
            staged = self.fp32_grad_staging.narrow(0, self.offsets[sub_group_id], grad.numel())
            staged.copy_(grad.view(-1))
            tensors.append(staged)
            paths.append(self._grad_path(sub_group_id))
        self.gradient_swapper.swap_out_tensors(tensors, paths)

    def finish_backward(self):
        """Before the optimizer step reads the swapped gradients back."""
        pinned = self.gradient_swapper.release_buffers()
        self.gradient_swapper.add_buffers(pinned)
