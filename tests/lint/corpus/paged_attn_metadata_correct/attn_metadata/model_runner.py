from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from vllm.vllm_flash_attn import flash_attn_varlen_func

from .input_batch import InputBatch


@dataclass
class FlashAttentionMetadata:
    num_actual_tokens: int
    max_query_len: int
    max_seq_len: int
    query_start_loc: torch.Tensor
    seq_lens: torch.Tensor
    block_table: torch.Tensor


class GPUModelRunner:
    def __init__(self, input_batch: InputBatch, kv_caches: list[tuple[torch.Tensor, torch.Tensor]], scale: float) -> None:
        self.input_batch = input_batch
        self.kv_caches = kv_caches
        self.scale = scale
        self.device = input_batch.device
        # metadata uploads overlap with the tail of the previous step
        self._upload_stream = torch.cuda.Stream(device=self.device)
        self._upload_done = torch.cuda.Event()

    def _prepare_inputs(self, num_scheduled_tokens: np.ndarray) -> FlashAttentionMetadata:
        batch = self.input_batch
        n = batch.num_reqs
        compute_stream = torch.cuda.current_stream()

        # the previous upload must have finished reading the pinned staging rows
        self._upload_done.synchronize()
        total_tokens = batch.fill_step_metadata(num_scheduled_tokens)

        with torch.cuda.stream(self._upload_stream):
            batch.block_table.commit(n)
            batch.seq_lens_gpu[:n].copy_(batch.seq_lens_cpu[:n], non_blocking=True)
            query_start_loc = torch.empty(n + 1, dtype=torch.int32, device=self.device)
            query_start_loc.copy_(batch.query_start_loc_cpu[: n + 1], non_blocking=True)
            self._upload_done.record(self._upload_stream)
        query_start_loc.record_stream(compute_stream)
        compute_stream.wait_event(self._upload_done)

        return FlashAttentionMetadata(
            num_actual_tokens=total_tokens,
            max_query_len=int(num_scheduled_tokens.max()),
            max_seq_len=int(batch.seq_lens_np[:n].max()),
            query_start_loc=query_start_loc,
            seq_lens=batch.seq_lens_gpu[:n],
            block_table=batch.block_table.get_device_tensor()[:n],
        )

    @torch.inference_mode()
    def execute_model(self, num_scheduled_tokens: np.ndarray, query: torch.Tensor) -> list[torch.Tensor]:
        attn_metadata = self._prepare_inputs(num_scheduled_tokens)
        outputs = []
        for key_cache, value_cache in self.kv_caches:
            out = flash_attn_varlen_func(
                q=query[: attn_metadata.num_actual_tokens],
                k=key_cache,
                v=value_cache,
                cu_seqlens_q=attn_metadata.query_start_loc,
                max_seqlen_q=attn_metadata.max_query_len,
                seqused_k=attn_metadata.seq_lens,
                max_seqlen_k=attn_metadata.max_seq_len,
                softmax_scale=self.scale,
                causal=True,
                block_table=attn_metadata.block_table,
            )
            outputs.append(out)
        # The upload stream is persistent: keep it behind this step's attention
        # so the next step's commit() does not overwrite tables still in use.
        self._upload_stream.wait_stream(torch.cuda.current_stream())
        return outputs
