from typing import Dict, Iterable, Iterator, List

import torch


def iter_params(optimizer: torch.optim.Optimizer) -> Iterator[torch.Tensor]:
    for group in optimizer.param_groups:
        for param in group["params"]:
            yield param


def stage_grads_to_host(
    cpu_optimizers: List[torch.optim.Optimizer],
    cpu_copy_to_gpu_param: Dict[torch.Tensor, torch.Tensor],
    host_grad_buffers: Dict[torch.Tensor, torch.Tensor],
    pin_memory: bool,
) -> Dict[torch.optim.Optimizer, torch.cuda.Event]:
    """Copies the device gradients of CPU-updated params into host buffers on the current stream.

    Returns one event per optimizer, recorded after its copies were enqueued.
    """
    stream = torch.cuda.current_stream()
    events: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}
    for optimizer in cpu_optimizers:
        for param in iter_params(optimizer):
            gpu_param = cpu_copy_to_gpu_param[param]
            grad = getattr(gpu_param, "decoupled_grad", gpu_param.grad)
            if grad is None:
                param.grad = None
                param.requires_grad = False
                continue
            param.requires_grad = False
            if param not in host_grad_buffers:
                host_grad_buffers[param] = torch.empty(
                    param.shape, dtype=param.dtype, device="cpu", pin_memory=pin_memory
                )
            param.grad = host_grad_buffers[param]
            param.grad.data.copy_(grad, non_blocking=True)
        events[optimizer] = stream.record_event()
    return events


def host_grads_are_finite(grads: Iterable[torch.Tensor]) -> bool:
    for grad in grads:
        # expect: KVG003
        if not bool(torch.isfinite(grad).all()):
            return False
    return True
