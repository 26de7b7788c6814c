from __future__ import annotations

import logging
from typing import Sequence

import torch

from .config import GraphRunnerConfig
from .readback import OutputReadback, PendingTokens

logger = logging.getLogger(__name__)

IDS, POSITIONS = 0, 1


class GraphDecodeRunner:
    """Captures one greedy decode step of ``model`` and replays it per token."""

    def __init__(self, model: torch.nn.Module, cfg: GraphRunnerConfig) -> None:
        self.model = model
        self.cfg = cfg
        B = cfg.max_batch_size
        # row 0: token ids, row 1: positions
        self._static_inputs = torch.zeros(2, B, dtype=torch.long, device=cfg.device)
        self._static_next = torch.zeros(B, dtype=torch.long, device=cfg.device)
        self._static_finished = torch.zeros(B, dtype=torch.bool, device=cfg.device)
        self._h2d_stream = torch.cuda.Stream(device=cfg.device)
        self._readback = OutputReadback(cfg.device)
        self._graph: torch.cuda.CUDAGraph | None = None
        self.all_finished = False

    def _forward(self) -> None:
        logits = self.model(self._static_inputs[IDS], self._static_inputs[POSITIONS])
        self._static_next.copy_(logits.argmax(dim=-1))
        torch.eq(self._static_next, self.cfg.eos_token_id, out=self._static_finished)

    @torch.inference_mode()
    def capture(self) -> None:
        side = torch.cuda.Stream(device=self.cfg.device)
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(self.cfg.warmup_iters):
                self._forward()
        torch.cuda.current_stream().wait_stream(side)
        self._graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self._graph):
            self._forward()
        torch.cuda.synchronize()
        logger.info("captured decode graph for batch size %d", self.cfg.max_batch_size)

    def _load_inputs(self, ids: Sequence[int], positions: Sequence[int]) -> int:
        n = len(ids)
        if n > self.cfg.max_batch_size:
            raise ValueError(f"batch {n} > captured size {self.cfg.max_batch_size}")
        staged = torch.tensor([list(ids), list(positions)], dtype=torch.long, pin_memory=True)
        with torch.cuda.stream(self._h2d_stream):
            self._static_inputs[:, :n].copy_(staged, non_blocking=True)
        return n

    @torch.inference_mode()
    def step(self, ids: Sequence[int], positions: Sequence[int]) -> PendingTokens:
        if self._graph is None:
            raise RuntimeError("call capture() first")
        n = self._load_inputs(ids, positions)
        compute = torch.cuda.current_stream()
        compute.wait_stream(self._h2d_stream)
        # the previous step's outputs may still be draining to the host
        compute.wait_stream(self._readback.stream)
        self._graph.replay()
        # scalar check lets generate() stop as soon as every row has emitted EOS
        self.all_finished = bool(self._static_finished[:n].all().item())
        return self._readback.copy_out(self._static_next[:n])
