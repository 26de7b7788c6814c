"""A snapshot of a step's outputs, copied to pinned memory on a side stream; the summary
reads it before the event has fired."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class HostSnapshot:
    data: dict[str, object]
    event: torch.cuda.Event
    keep_alive: dict[str, torch.Tensor]

    @classmethod
    def capture(cls, outputs: dict[str, object], d2h_stream: torch.cuda.Stream) -> HostSnapshot:
        on_device = {k: v.clone() for k, v in outputs.items() if isinstance(v, torch.Tensor)}
        plain = {k: v for k, v in outputs.items() if not isinstance(v, torch.Tensor)}
        pinned = {k: torch.empty(v.shape, dtype=v.dtype, pin_memory=True) for k, v in on_device.items()}
        d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(d2h_stream):
            for k in on_device:
                pinned[k].copy_(on_device[k], non_blocking=True)
            event = torch.cuda.Event()
            event.record()
        merged = pinned | plain
        # expect: KVG003
        merged["tokens"].tolist()
        return cls(data=merged, event=event, keep_alive=on_device)

    def materialize(self) -> dict[str, object]:
        self.event.synchronize()
        return {k: (v.tolist() if isinstance(v, torch.Tensor) else v) for k, v in self.data.items()}
