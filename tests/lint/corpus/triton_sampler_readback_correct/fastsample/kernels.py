from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _greedy_sample_kernel(
    logits_ptr,
    stride_row,
    vocab_size,
    out_ids_ptr,
    out_logprobs_ptr,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride_row

    best_val = tl.full([BLOCK], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK], tl.int32)
    for start in range(0, vocab_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + offs, mask=offs < vocab_size, other=float("-inf")).to(tl.float32)
        take = x > best_val
        best_val = tl.where(take, x, best_val)
        best_idx = tl.where(take, offs, best_idx)
    row_max = tl.max(best_val, axis=0)
    arg = tl.min(tl.where(best_val == row_max, best_idx, vocab_size), axis=0)

    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, vocab_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + offs, mask=offs < vocab_size, other=float("-inf")).to(tl.float32)
        acc += tl.exp(x - row_max)
    lse = row_max + tl.log(tl.sum(acc, axis=0))

    tl.store(out_ids_ptr + row, arg)
    tl.store(out_logprobs_ptr + row, row_max - lse)


def greedy_sample(logits: torch.Tensor, block: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    """Argmax token and its log-probability per row, on the current stream."""
    assert logits.is_cuda and logits.dim() == 2 and logits.stride(1) == 1
    num_rows, vocab = logits.shape
    out_ids = torch.empty(num_rows, dtype=torch.int32, device=logits.device)
    out_logprobs = torch.empty(num_rows, dtype=torch.float32, device=logits.device)
    _greedy_sample_kernel[(num_rows,)](
        logits, logits.stride(0), vocab, out_ids, out_logprobs, BLOCK=block, num_warps=4
    )
    return out_ids, out_logprobs
