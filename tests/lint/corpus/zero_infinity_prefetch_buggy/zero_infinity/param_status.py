from enum import Enum
from itertools import count

import torch
from deepspeed.accelerator import get_accelerator

_param_ids = count()


class ZeroParamStatus(Enum):
    # parameters are fully present and ready for use on all processes
    AVAILABLE = 1
    # parameters are either partitioned or remote in some or all process
    NOT_AVAILABLE = 2
    # parameters are being gathered.
    INFLIGHT = 3


def iter_params(module, recurse=False):
    return [p for p in module.parameters(recurse=recurse) if hasattr(p, "ds_id")]


@torch.no_grad()
def init_offloaded_params(module, device=None):
    """Move every parameter of `module` to pinned host memory.

    The device copy is kept as a persistent buffer (``ds_gpu_buffer``) so repeated
    fetches do not churn the caching allocator; ``param.data`` points at an empty
    tensor whenever the parameter is not AVAILABLE.
    """
    device = device or get_accelerator().current_device_name()
    for param in module.parameters():
        if hasattr(param, "ds_id"):
            continue
        param.ds_id = next(_param_ids)
        param.ds_shape = param.shape
        param.ds_numel = param.numel()
        param.ds_cpu_tensor = get_accelerator().pin_memory(param.detach().to("cpu").contiguous())
        param.ds_gpu_buffer = torch.empty(param.ds_shape, dtype=param.dtype, device=device)
        param.ds_empty = torch.empty(0, dtype=param.dtype, device=device)
        param.ds_status = ZeroParamStatus.NOT_AVAILABLE
        param.ds_persist = False
        param.data = param.ds_empty
