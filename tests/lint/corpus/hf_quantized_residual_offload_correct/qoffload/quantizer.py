"""Asymmetric per-group quantization of KV tensors (codes kept one per byte), plus the helpers the
offloaded layer uses to move a quantized tensor between the device and pinned host memory."""

from dataclasses import dataclass

import torch


@dataclass
class QuantizedTensor:
    data: torch.Tensor  # uint8 codes, (groups, group_size)
    scale_zero: torch.Tensor  # (2, groups): scale then zero point
    shape: torch.Size
    dtype: torch.dtype

    @property
    def nbytes(self) -> int:
        return self.data.numel() * self.data.element_size() + self.scale_zero.numel() * self.scale_zero.element_size()


def quantize(t: torch.Tensor, nbits: int, group_size: int) -> QuantizedTensor:
    flat = t.reshape(-1, group_size).float()
    lo = flat.amin(dim=1, keepdim=True)
    hi = flat.amax(dim=1, keepdim=True)
    qmax = (1 << nbits) - 1
    scale = (hi - lo).clamp_(min=1e-6) / qmax
    codes = ((flat - lo) / scale).round_().clamp_(0, qmax).to(torch.uint8)
    scale_zero = torch.cat([scale, lo], dim=1).t().contiguous()
    return QuantizedTensor(codes, scale_zero, t.shape, t.dtype)


def dequantize(q: QuantizedTensor) -> torch.Tensor:
    scale, zero = q.scale_zero[0].unsqueeze(1), q.scale_zero[1].unsqueeze(1)
    return (q.data.float() * scale + zero).to(q.dtype).reshape(q.shape)


def empty_pinned_like(q: QuantizedTensor) -> QuantizedTensor:
    data = torch.empty(q.data.shape, dtype=q.data.dtype, pin_memory=True)
    scale_zero = torch.empty(q.scale_zero.shape, dtype=q.scale_zero.dtype, pin_memory=True)
    return QuantizedTensor(data, scale_zero, q.shape, q.dtype)


def copy_quantized_(dst: QuantizedTensor, src: QuantizedTensor, non_blocking: bool = True) -> QuantizedTensor:
    dst.data.copy_(src.data, non_blocking=non_blocking)
    dst.scale_zero.copy_(src.scale_zero, non_blocking=non_blocking)
    return dst


def quantized_to(q: QuantizedTensor, device: torch.device, non_blocking: bool = True) -> QuantizedTensor:
    return QuantizedTensor(
        q.data.to(device, non_blocking=non_blocking),
        q.scale_zero.to(device, non_blocking=non_blocking),
        q.shape,
        q.dtype,
    )
