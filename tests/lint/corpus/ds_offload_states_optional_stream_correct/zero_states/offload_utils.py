import torch
from deepspeed.accelerator import get_accelerator


def host_buffer_like(tensor, pin_memory):
    buf = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu")
    return get_accelerator().pin_memory(buf) if pin_memory else buf


def move_to_host(tensors, host_buffers, non_blocking, stream=None):
    """Copy each tensor into its host buffer and make the tensor alias that buffer."""
    for tensor, buf in zip(tensors, host_buffers):
        device_data = tensor.data
        buf.copy_(device_data, non_blocking=non_blocking)
        if stream is not None:
            # the device storage is released below while the copy may still read it
            device_data.record_stream(stream)
        tensor.data = buf


def move_to_device(tensors, device, non_blocking):
    for tensor in tensors:
        tensor.data = tensor.data.to(device, non_blocking=non_blocking)
