from __future__ import annotations

import dataclasses
from typing import Any, Callable

import torch

from . import _cudart
from .engine import BlockCopyEngine, CacheLayout


@dataclasses.dataclass
class SchedulerOutput:
    input_ids: torch.Tensor
    positions: torch.Tensor
    attn_metadata: Any
    # Preempted sequences are swapped out before swapped-in ones are restored,
    # so a freed GPU block may be reused by swap-in within the same step.
    blocks_to_swap_out: dict[int, int] = dataclasses.field(default_factory=dict)
    blocks_to_swap_in: dict[int, int] = dataclasses.field(default_factory=dict)


ForwardFn = Callable[[torch.Tensor, torch.Tensor, list[torch.Tensor], Any], torch.Tensor]


class CacheRunner:
    """Owns the paged KV cache and runs the model forward on the default stream."""

    def __init__(self, layout: CacheLayout, forward: ForwardFn, device: torch.device) -> None:
        self.layout = layout
        self._forward = forward
        self.gpu_cache = [
            torch.empty((layout.num_gpu_blocks, *layout.block_shape), dtype=layout.dtype, device=device)
            for _ in range(layout.num_layers)
        ]
        self.cpu_cache = [
            torch.empty((layout.num_cpu_blocks, *layout.block_shape), dtype=layout.dtype, pin_memory=True)
            for _ in range(layout.num_layers)
        ]
        self._copy_engine = BlockCopyEngine(layout, self.gpu_cache, self.cpu_cache)
        self._compute_stream = torch.cuda.current_stream(device)

    def _issue_swaps(self, out: SchedulerOutput) -> None:
        if not (out.blocks_to_swap_out or out.blocks_to_swap_in):
            return
        if out.blocks_to_swap_out:
            self._copy_engine.swap_out(out.blocks_to_swap_out)
        if out.blocks_to_swap_in:
            self._copy_engine.swap_in(out.blocks_to_swap_in)
        # The forward must not touch swapped-in blocks before they have landed.
        done = self._copy_engine.record_done()
        _cudart.stream_wait_event(self._compute_stream.cuda_stream, done)

    @torch.inference_mode()
    def execute_model(self, out: SchedulerOutput) -> torch.Tensor:
        self._issue_swaps(out)
        with torch.cuda.stream(self._compute_stream):
            return self._forward(out.input_ids, out.positions, self.gpu_cache, out.attn_metadata)
