"""The slice of a ZeRO-3 stage that drives the parameter swapper."""

import torch
from deepspeed.accelerator import get_accelerator

from .swap_tensor import PartitionedParamSwapper, SwapStatus


class ParamOffloadCoordinator:
    def __init__(self, module, aio_config, nvme_path, world_size, rank):
        self.module = module
        self.rank = rank
        self.params = [p for p in module.parameters()]
        largest = 0
        device = get_accelerator().current_device_name()
        for i, param in enumerate(self.params):
            param.ds_id = i
            chunk = (param.numel() + world_size - 1) // world_size
            largest = max(largest, chunk)
            padded = torch.zeros(chunk * world_size, dtype=param.dtype, device=device)
            padded.narrow(0, 0, param.numel()).copy_(param.data.view(-1))
            param.ds_tensor = padded.narrow(0, rank * chunk, chunk).clone()
            param.ds_status = SwapStatus.AVAILABLE
        self.swapper = PartitionedParamSwapper(aio_config, nvme_path, largest, buffer_count=len(self.params))

    def release_sub_module(self, submodule):
        params = [p for p in submodule.parameters(recurse=False) if p.ds_status == SwapStatus.AVAILABLE]
        if params:
            self.swapper.swap_out_and_release(params)

    def fetch_sub_module(self, submodule):
        params = [p for p in submodule.parameters(recurse=False) if p.ds_status == SwapStatus.NOT_AVAILABLE]
        if params:
            self.swapper.swap_in(params)


def register_offload_hooks(module, coordinator):
    """Fetch a submodule's partitions before its forward and swap them out after it."""
    handles = []
    for submodule in module.modules():
        handles.append(submodule.register_forward_pre_hook(lambda m, _inputs: coordinator.fetch_sub_module(m)))
        handles.append(submodule.register_forward_hook(lambda m, _inputs, _out: coordinator.release_sub_module(m)))
    return handles
