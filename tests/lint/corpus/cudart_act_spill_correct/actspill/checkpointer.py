from __future__ import annotations

import logging
import os

from . import cudart
from .constants import SPILL_SUFFIX, cudaEventDisableTiming, cudaStreamNonBlocking
from .writer import SpillJob, SpillWriter

logger = logging.getLogger(__name__)


class ActivationCheckpointer:
    """Spills the output of selected layers so that backward can recompute from disk."""

    def __init__(self, spill_dir: str, num_layers: int, every: int = 2) -> None:
        self.spill_dir = spill_dir
        self.every = every
        self.compute_stream = cudart.stream_create(cudaStreamNonBlocking)
        self._ready = [cudart.event_create(cudaEventDisableTiming) for _ in range(num_layers)]
        self.writer = SpillWriter()
        self.writer.start()
        os.makedirs(spill_dir, exist_ok=True)

    def begin_step(self) -> None:
        self.writer.jobs.join()

    def after_layer(self, layer: int, out_ptr: int, nbytes: int) -> None:
        """Called once the kernels producing ``out_ptr`` are queued on ``compute_stream``."""
        if layer % self.every:
            return
        ready = self._ready[layer]
        cudart.event_record(ready, self.compute_stream)
        path = os.path.join(self.spill_dir, f"layer{layer:03d}{SPILL_SUFFIX}")
        self.writer.jobs.put(SpillJob(layer, out_ptr, nbytes, ready, path))
        logger.debug("queued spill of layer %d (%d bytes)", layer, nbytes)

    def close(self) -> None:
        self.writer.jobs.put(None)
        self.writer.join()
