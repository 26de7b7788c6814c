"""The worker side: kvguard's ordered backend in place of the stock copy backend.

`GuardedBackendBridge` takes the place of `SimpleCPUOffloadWorker._backend`. The stock worker
keeps doing its bookkeeping (pending event indices, high-water marks, reports to the scheduler);
the bridge changes two things:

- every copy, store or load, is handed to kvguard's `OrderedCopyBackend`, whose guard records
  an event on the calling thread's current (compute) stream when the copy is requested and has
  the copy thread's transfer stream wait on it before the copy. The stock worker requests copies
  on the model runner's thread after the forward was launched, so that event follows the
  forward's writes. The `wait_event` the stock worker passes (0.24 and later) is not passed on:
  it is recorded on the same stream just before the request, so the guard's event covers it,
  and waiting on it too would cost the copy thread a second wait per copy.
- completion events reach the stock worker's event lists only in request order, once every
  earlier copy of that direction has completed or been refused. The stock worker takes the
  newest completed event as covering all earlier ones, so a refused copy must be settled first:
  a refused store is dropped from the pending stores and reported as refused (its blocks never
  enter the CPU cache); a refused load is marked done so its requests do not hang, and its GPU
  blocks are reported as load errors (vLLM then applies kv_load_failure_policy).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from kvguard.runtime import OrderedCopyBackend

EventsList = list[tuple[int, Any]]


class SettledWithoutCopy:
    """Stands in a stock event list for a refused copy: already complete, nothing to wait on."""

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None


@dataclass
class _Direction:
    """Copies of one direction in request order, and where the stock worker polls them."""

    stock_events: EventsList | None = None
    requested: deque[int] = field(default_factory=deque)
    arrivals: EventsList = field(default_factory=list)  # the backend appends here
    loaded_blocks: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # Completions (an event) and refusals (None) waiting behind a copy still in flight.
    held: dict[int, Any] = field(default_factory=dict)


class GuardedBackendBridge:
    """What the stock worker sees as its backend: launch_copy/init/shutdown, ordered and settled."""

    def __init__(self, backend: OrderedCopyBackend) -> None:
        self.backend = backend
        self._stores = _Direction()
        self._loads = _Direction()
        self.refused_store_events: dict[int, int] = {}
        self.load_error_blocks: set[int] = set()

    def init(
        self,
        gpu_caches: dict[str, torch.Tensor],
        cpu_caches: dict[str, torch.Tensor],
        device: torch.device,
        load_stream: torch.cuda.Stream,
        store_stream: torch.cuda.Stream,
    ) -> None:
        """Called by the stock worker's register_kv_caches where it creates the backend early."""
        self.backend.init(gpu_caches, cpu_caches, device, load_stream, store_stream)

    def launch_copy(
        self,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
        is_store: bool,
        event_idx: int,
        events_list: EventsList,
        wait_event: Any = None,  # covered by the guard's own event (see the module docstring)
    ) -> None:
        direction = self._stores if is_store else self._loads
        direction.stock_events = events_list
        direction.requested.append(event_idx)
        if not is_store:
            direction.loaded_blocks[event_idx] = tuple(dst_blocks)
        self.backend.launch_copy(src_blocks, dst_blocks, is_store, event_idx, direction.arrivals)

    def settle(self) -> tuple[set[int], set[int]]:
        """Move completions and refusals into the stock event lists, in request order.

        Returns the store and load event indices released as refused by this call. Arrivals
        are taken before refusals: the backend settles copies in request order, so every
        refusal that precedes a taken arrival is already listed.
        """
        self.backend.raise_errors()  # under policy raise, a stopped copy stops the engine here
        arrived = {id(d): _take(d.arrivals) for d in (self._stores, self._loads)}
        for refusal in self.backend.refused_copies():
            direction = self._stores if refusal.is_store else self._loads
            direction.held[refusal.event_idx] = None
        released = []
        for direction in (self._stores, self._loads):
            direction.held.update(arrived[id(direction)])
            released.append(self._release_in_order(direction))
        return released[0], released[1]

    def drain(self) -> None:
        """Wait until every requested copy was issued and reported (before a preemption flush)."""
        self.backend.drain()

    def shutdown(self) -> None:
        self.backend.shutdown()

    def _release_in_order(self, direction: _Direction) -> set[int]:
        refused: set[int] = set()
        while direction.requested and direction.requested[0] in direction.held:
            event_idx = direction.requested.popleft()
            event = direction.held.pop(event_idx)
            assert direction.stock_events is not None
            if event is None:
                refused.add(event_idx)
                event = SettledWithoutCopy()
                if direction is self._loads:
                    self.load_error_blocks.update(direction.loaded_blocks[event_idx])
                else:
                    self.refused_store_events[event_idx] = 1
            direction.stock_events.append((event_idx, event))
            direction.loaded_blocks.pop(event_idx, None)
        return refused


def _take(items: EventsList) -> EventsList:
    """Take the first len(items) entries; the copy thread only ever appends."""
    count = len(items)
    taken = items[:count]
    del items[:count]
    return taken
