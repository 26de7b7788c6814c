"""Zero-copy hand-over of torch CUDA tensors to cupy.

The tensors are exchanged as DLPack capsules (``torch.utils.dlpack.to_dlpack``), which carry
no stream information: whoever consumes them is responsible for ordering its reads behind the
torch stream that produced them."""

import cupy
import torch
from torch.utils.dlpack import to_dlpack


def to_cupy(tensor: torch.Tensor) -> cupy.ndarray:
    if not tensor.is_cuda:
        raise ValueError("to_cupy() expects a CUDA tensor")
    return cupy.from_dlpack(to_dlpack(tensor.contiguous()))


def current_torch_stream() -> cupy.cuda.ExternalStream:
    """torch's current stream on this thread, wrapped so cupy can record events on it."""
    stream = torch.cuda.current_stream()
    return cupy.cuda.ExternalStream(stream.cuda_stream, stream.device_index)
