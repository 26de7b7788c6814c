# Copyright 2024 The HuggingFace Team. All rights reserved.
from typing import Tuple

import torch
from cuda.bindings import runtime

from .constants import SCORES_SRC_ACCESS_ORDER


class HostScoresRecorder:
    """Collects the processed scores of each step on the host (``output_scores=True``)."""

    def __init__(self, max_new_tokens: int, batch_size: int, vocab_size: int,
                 dtype: torch.dtype, device: torch.device):
        self._host = torch.empty((max_new_tokens, batch_size, vocab_size), dtype=dtype,
                                 pin_memory=True)
        self._stream = torch.cuda.Stream(device=device)
        self._done = torch.cuda.Event()
        self._step = 0
        self._attrs = runtime.cudaMemcpyAttributes()
        self._attrs.srcAccessOrder = runtime.cudaMemcpySrcAccessOrder(SCORES_SRC_ACCESS_ORDER)
        self._attrs.flags = runtime.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute

    def record(self, next_token_scores: torch.Tensor) -> None:
        scores = next_token_scores.contiguous()
        batch = scores.shape[0]
        row_bytes = scores.shape[1] * scores.element_size()
        dst = self._host[self._step]
        self._stream.wait_stream(torch.cuda.current_stream())
        srcs = [scores[b].data_ptr() for b in range(batch)]
        dsts = [dst[b].data_ptr() for b in range(batch)]
        # expect: KVG002
        result = runtime.cudaMemcpyBatchAsync(
            dsts, srcs, [row_bytes] * batch, batch, [self._attrs], [0], 1, self._stream.cuda_stream
        )
        if result[0] != runtime.cudaError_t.cudaSuccess:
            raise RuntimeError(f"cudaMemcpyBatchAsync failed: {result[0]}")
        scores.record_stream(self._stream)
        self._step += 1

    def finalize(self) -> Tuple[torch.Tensor, ...]:
        self._done.record(self._stream)
        self._done.synchronize()
        return tuple(self._host[i].clone() for i in range(self._step))


@torch.no_grad()
def greedy_search_with_scores(model, input_ids: torch.Tensor, max_new_tokens: int,
                              eos_token_id: int) -> Tuple[torch.Tensor, Tuple[torch.Tensor, ...]]:
    batch_size = input_ids.shape[0]
    recorder = HostScoresRecorder(max_new_tokens, batch_size, model.config.vocab_size,
                                  torch.float32, input_ids.device)
    unfinished = torch.ones(batch_size, dtype=torch.long, device=input_ids.device)
    for _ in range(max_new_tokens):
        logits = model(input_ids).logits[:, -1, :]
        next_token_scores = torch.log_softmax(logits.float(), dim=-1)
        recorder.record(next_token_scores)
        next_tokens = torch.argmax(next_token_scores, dim=-1)
        next_tokens = next_tokens * unfinished + eos_token_id * (1 - unfinished)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        unfinished = unfinished & (next_tokens != eos_token_id).long()
        if unfinished.max() == 0:
            break
    return input_ids, recorder.finalize()
