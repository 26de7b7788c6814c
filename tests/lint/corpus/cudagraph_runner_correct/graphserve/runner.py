from __future__ import annotations

import dataclasses

import torch

from .capture import DecodeFn, capture_decode_graph
from .spec import GraphSpec, StaticIO


@dataclasses.dataclass
class PendingStep:
    num_seqs: int
    host_tokens: torch.Tensor
    done: torch.cuda.Event

    def result(self) -> list[int]:
        self.done.synchronize()
        return self.host_tokens[: self.num_seqs].tolist()


class GraphRunner:
    """Feeds a captured decode graph: H2D into static inputs, replay, D2H of tokens."""

    def __init__(self, decode: DecodeFn, spec: GraphSpec, num_host_slots: int = 2) -> None:
        self.spec = spec
        self.io = StaticIO.allocate(spec)
        self.graph = capture_decode_graph(decode, self.io)
        self._copy_stream = torch.cuda.Stream(spec.device)
        self._replay_stream = torch.cuda.Stream(spec.device)
        self._inputs_ready = torch.cuda.Event()
        self._host_tokens = [self.io.pinned_output_like() for _ in range(num_host_slots)]
        self._slot = 0

    def _next_host_slot(self) -> torch.Tensor:
        buf = self._host_tokens[self._slot]
        self._slot = (self._slot + 1) % len(self._host_tokens)
        return buf

    def step(self, host_inputs: dict[str, torch.Tensor]) -> PendingStep:
        """``host_inputs`` are pinned int64 tensors of length <= max_batch_size."""
        n = host_inputs["input_ids"].shape[0]
        if n > self.spec.max_batch_size:
            raise ValueError(f"batch of {n} exceeds captured size {self.spec.max_batch_size}")

        # The copy stream is already ordered behind the previous replay (see the
        # end of this method), so the static inputs are free to overwrite.
        with torch.cuda.stream(self._copy_stream):
            for name, src in host_inputs.items():
                self.io.inputs[name][:n].copy_(src, non_blocking=True)
            self._inputs_ready.record(self._copy_stream)

        self._replay_stream.wait_event(self._inputs_ready)
        host_tokens = self._next_host_slot()
        with torch.cuda.stream(self._replay_stream):
            self.graph.replay()
            # Read the tokens back on the replay stream itself: the copy is tiny
            # and this keeps it in order with the graph that wrote them.
            host_tokens.copy_(self.io.next_tokens, non_blocking=True)
            done = torch.cuda.Event()
            done.record(self._replay_stream)

        # Keep the next step's input copies behind this replay.
        self._copy_stream.wait_stream(self._replay_stream)
        return PendingStep(num_seqs=n, host_tokens=host_tokens, done=done)
