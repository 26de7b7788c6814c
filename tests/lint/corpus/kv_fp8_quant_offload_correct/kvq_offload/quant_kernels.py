import torch
import triton
import triton.language as tl

from .constants import FP8_E4M3_MAX, MIN_SCALE


@triton.jit
def _quantize_kv_blocks_kernel(
    kv_ptr,
    block_ids_ptr,
    out_ptr,
    scales_ptr,
    kv_block_stride,
    BLOCK_NUMEL: tl.constexpr,
    FP8_MAX: tl.constexpr,
    SCALE_FLOOR: tl.constexpr,
):
    pid = tl.program_id(0)
    block_id = tl.load(block_ids_ptr + pid).to(tl.int64)
    offs = tl.arange(0, BLOCK_NUMEL)
    x = tl.load(kv_ptr + block_id * kv_block_stride + offs).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0) / FP8_MAX, SCALE_FLOOR)
    q = (x / scale).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + pid.to(tl.int64) * BLOCK_NUMEL + offs, q)
    tl.store(scales_ptr + pid, scale)


def quantize_kv_blocks(
    kv_layer: torch.Tensor, block_ids: torch.Tensor, out: torch.Tensor, scales: torch.Tensor
) -> None:
    """Quantize whole KV blocks of one layer to FP8 with one scale per block,
    on the current stream.

    kv_layer: [num_blocks, ...] contiguous; out: [>= n, block_numel] fp8;
    scales: [>= n] fp32, where n = len(block_ids).
    """
    assert kv_layer.is_contiguous()
    block_numel = kv_layer[0].numel()
    assert block_numel & (block_numel - 1) == 0, "block numel must be a power of two"
    grid = (block_ids.numel(),)
    _quantize_kv_blocks_kernel[grid](
        kv_layer,
        block_ids,
        out,
        scales,
        kv_layer.stride(0),
        BLOCK_NUMEL=block_numel,
        FP8_MAX=FP8_E4M3_MAX,
        SCALE_FLOOR=MIN_SCALE,
    )
