# SPDX-License-Identifier: Apache-2.0
import logging
from typing import List, Sequence

import torch

from . import device
from .constants import PREFETCH_DEPTH
from .swapper import AsyncPartitionedParamSwapper

logger = logging.getLogger(__name__)


class PrefetchCoordinator:

    def __init__(self, layers: Sequence[torch.nn.Module], swapper: AsyncPartitionedParamSwapper,
                 depth: int = PREFETCH_DEPTH):
        self.layers = list(layers)
        self.swapper = swapper
        self.depth = depth
        self.compute_stream = device.new_stream()
        self._layer_params: List[List[torch.nn.Parameter]] = [list(m.parameters()) for m in self.layers]
        for params in self._layer_params:
            swapper.register(params)

    @torch.no_grad()
    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        outer = device.compute_stream()
        self.compute_stream.wait_stream(outer)
        n = len(self.layers)
        with device.device_module().stream(self.compute_stream):
            for i in range(min(self.depth, n)):
                self.swapper.prefetch(self._layer_params[i])
            for i, layer in enumerate(self.layers):
                self.swapper.wait(self._layer_params[i])
                hidden = layer(hidden)
                self.swapper.release(self._layer_params[i])
                if i + self.depth < n:
                    self.swapper.prefetch(self._layer_params[i + self.depth])
        outer.wait_stream(self.compute_stream)
        return hidden
