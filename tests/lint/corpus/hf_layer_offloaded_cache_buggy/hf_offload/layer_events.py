from __future__ import annotations

import torch


class LayerEventTable:
    """One CUDA event per layer and per direction.

    ``prefetched[i]`` is recorded on the prefetch stream once layer ``i`` is
    resident on the device; ``computed[i]`` is recorded on the compute stream
    for layer ``i`` and lets the prefetch stream order itself behind it.
    """

    def __init__(self, num_layers: int) -> None:
        self._prefetched = [torch.cuda.Event() for _ in range(num_layers)]
        self._computed = [torch.cuda.Event() for _ in range(num_layers)]

    def mark_prefetched(self, layer_idx: int, stream: torch.cuda.Stream) -> None:
        self._prefetched[layer_idx].record(stream)

    def wait_prefetched(self, layer_idx: int, stream: torch.cuda.Stream) -> None:
        stream.wait_event(self._prefetched[layer_idx])

    def mark_computed(self, layer_idx: int, stream: torch.cuda.Stream) -> None:
        self._computed[layer_idx].record(stream)

    def wait_computed(self, layer_idx: int, stream: torch.cuda.Stream) -> None:
        stream.wait_event(self._computed[layer_idx])
