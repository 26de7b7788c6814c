from typing import Callable, Dict

import torch

from .grad_staging import iter_params


def make_param_copy_back_hook(
    h2d_stream: torch.cuda.Stream,
    cpu_copy_to_gpu_param: Dict[torch.Tensor, torch.Tensor],
) -> Callable:
    """Builds a step post-hook that copies CPU-updated params back into the device params."""

    def param_copy_back_gpu_hook(optimizer, args, kwargs):
        compute_stream = torch.cuda.current_stream()
        h2d_stream.wait_stream(compute_stream)
        with torch.cuda.stream(h2d_stream):
            for param in iter_params(optimizer):
                gpu_param = cpu_copy_to_gpu_param[param]
                gpu_param.data.copy_(param.data, non_blocking=True)
        compute_stream.wait_event(h2d_stream.record_event())

    return param_copy_back_gpu_hook
