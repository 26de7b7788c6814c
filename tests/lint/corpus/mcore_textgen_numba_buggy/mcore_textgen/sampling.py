# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import math

from numba import cuda


@cuda.jit
def _greedy_kernel(logits, out_tokens):
    row = cuda.blockIdx.x
    if row >= logits.shape[0] or cuda.threadIdx.x != 0:
        return
    best = 0
    best_val = logits[row, 0]
    for v in range(1, logits.shape[1]):
        if logits[row, v] > best_val:
            best_val = logits[row, v]
            best = v
    out_tokens[row] = best


@cuda.jit
def _token_log_prob_kernel(logits, tokens, out_log_probs):
    row = cuda.blockIdx.x
    if row >= logits.shape[0] or cuda.threadIdx.x != 0:
        return
    row_max = logits[row, 0]
    for v in range(1, logits.shape[1]):
        row_max = max(row_max, logits[row, v])
    total = 0.0
    for v in range(logits.shape[1]):
        total += math.exp(logits[row, v] - row_max)
    out_log_probs[row] = logits[row, tokens[row]] - row_max - math.log(total)


def sample_greedy(d_logits, d_tokens, stream, threads: int) -> None:
    _greedy_kernel[d_logits.shape[0], threads, stream](d_logits, d_tokens)


def token_log_probs(d_logits, d_tokens, d_log_probs, stream, threads: int) -> None:
    _token_log_prob_kernel[d_logits.shape[0], threads, stream](d_logits, d_tokens, d_log_probs)
