from typing import Dict, List, Sequence

import torch

from .streams import get_d2h_stream, get_h2d_stream


def offload_grads(groups: Sequence[Sequence[torch.nn.Parameter]],
                  gpu_to_cpu: Dict[torch.nn.Parameter, torch.Tensor]) -> List[torch.cuda.Event]:
    """Queue device-to-host gradient copies, one event per parameter group."""
    stream = get_d2h_stream()
    stream.wait_stream(torch.cuda.current_stream())
    events = []
    with torch.cuda.stream(stream):
        for group in groups:
            for param in group:
                cpu_param = gpu_to_cpu[param]
                cpu_param.grad.copy_(param.grad, non_blocking=True)
                param.grad.record_stream(stream)
            event = torch.cuda.Event()
            event.record(stream)
            events.append(event)
    return events


def reload_params(groups: Sequence[Sequence[torch.nn.Parameter]],
                  gpu_to_cpu: Dict[torch.nn.Parameter, torch.Tensor]) -> None:
    """Copy updated host parameters back into the device parameters."""
    stream = get_h2d_stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for group in groups:
            for param in group:
                param.data.copy_(gpu_to_cpu[param].data, non_blocking=True)
    torch.cuda.current_stream().wait_stream(stream)
