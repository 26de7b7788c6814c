import logging
from typing import Dict, List

import cupy
import cupyx
import numpy as np

from .streams import StreamSet

logger = logging.getLogger(__name__)


class WeightHome:
    """Pinned host copy of every layer's weights and two GPU slots they are streamed into."""

    def __init__(self, host_weights: List[Dict[str, np.ndarray]]):
        self.host: List[Dict[str, np.ndarray]] = []
        for layer in host_weights:
            pinned = {}
            for name, arr in layer.items():
                buf = cupyx.empty_pinned(arr.shape, dtype=arr.dtype)
                buf[...] = arr
                pinned[name] = buf
            self.host.append(pinned)
        self.slots: List[Dict[str, cupy.ndarray]] = [self._alloc_slot(), self._alloc_slot()]
        self.loaded: List[cupy.cuda.Event] = [cupy.cuda.Event(), cupy.cuda.Event()]

    def _alloc_slot(self) -> Dict[str, cupy.ndarray]:
        shapes: Dict[str, tuple] = {}
        for layer in self.host:
            for name, arr in layer.items():
                if arr.size > int(np.prod(shapes.get(name, (0,)))):
                    shapes[name] = arr.shape
        dtype = next(iter(self.host[0].values())).dtype if self.host and self.host[0] else np.float16
        return {name: cupy.empty(shape, dtype=dtype) for name, shape in shapes.items()}

    def load(self, layer_idx: int, streams: StreamSet) -> None:
        if layer_idx >= len(self.host) or not self.host[layer_idx]:
            return
        slot = self.slots[layer_idx % 2]
        for name, host in self.host[layer_idx].items():
            # expect: KVG004
            slot[name][: host.shape[0]].set(host, stream=streams.load)
        self.loaded[layer_idx % 2].record(streams.load)

    def get(self, layer_idx: int, streams: StreamSet) -> Dict[str, cupy.ndarray]:
        streams.compute.wait_event(self.loaded[layer_idx % 2])
        return self.slots[layer_idx % 2]
