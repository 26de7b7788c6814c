"""Copies per-step top-k logprobs into a ring of pinned host slots without stalling decode.

The device->host copies run on a non-blocking cupy stream; ``collect`` waits on the slot's
event before the host looks at the numbers."""

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import cupy
import cupyx
import numpy as np
import torch

from . import interop


@dataclass
class ExportConfig:
    max_batch: int
    top_k: int = 20
    ring_size: int = 4


@dataclass
class _Slot:
    values: np.ndarray
    token_ids: np.ndarray
    step: int = -1
    rows: int = 0
    done: Optional[cupy.cuda.Event] = None
    keepalive: Tuple[torch.Tensor, ...] = field(default_factory=tuple)


class LogprobExporter:
    def __init__(self, config: ExportConfig):
        self.config = config
        self.side = cupy.cuda.Stream(non_blocking=True)
        shape = (config.max_batch, config.top_k)
        self.ring: List[_Slot] = [
            _Slot(
                values=cupyx.empty_pinned(shape, dtype=np.float32),
                token_ids=cupyx.empty_pinned(shape, dtype=np.int64),
            )
            for _ in range(config.ring_size)
        ]

    def _slot_for(self, step: int) -> _Slot:
        slot = self.ring[step % self.config.ring_size]
        if slot.done is not None:
            # the previous user of this slot may still be landing
            slot.done.synchronize()
        return slot

    def submit(self, values: torch.Tensor, token_ids: torch.Tensor, step: int) -> None:
        rows = values.shape[0]
        slot = self._slot_for(step)
        d_values = interop.to_cupy(values)
        d_ids = interop.to_cupy(token_ids)
        # the capsules carry no stream: order the side stream behind torch's kernels
        self.side.wait_event(interop.current_torch_stream().record())
        d_values.get(stream=self.side, out=slot.values[:rows], blocking=False)
        d_ids.get(stream=self.side, out=slot.token_ids[:rows], blocking=False)
        slot.done = self.side.record()
        slot.step, slot.rows = step, rows
        slot.keepalive = (values, token_ids)

    def collect(self, step: int):
        slot = self.ring[step % self.config.ring_size]
        if slot.step != step or slot.done is None:
            raise KeyError(f"step {step} was not exported or was overwritten")
        slot.done.synchronize()
        slot.keepalive = ()
        ids = slot.token_ids[: slot.rows].tolist()
        values = slot.values[: slot.rows].tolist()
        return [list(zip(r_ids, r_vals)) for r_ids, r_vals in zip(ids, values)]
