import logging
from typing import List

import cupy

from lmc_cupy.memory import PinnedMemoryObj

logger = logging.getLogger(__name__)


class CupyPagedGPUConnector:
    """Moves chunks of paged KV ([num_blocks, 2, block_size, heads, head_dim]
    per layer) between device memory and pinned host chunks."""

    def __init__(self, kv_layers: List[cupy.ndarray], compute_stream: cupy.cuda.Stream):
        self.kv_layers = kv_layers
        self.compute_stream = compute_stream
        self.store_stream = cupy.cuda.Stream(non_blocking=True)
        self.load_stream = cupy.cuda.Stream(non_blocking=True)

    def _after_compute(self, stream: cupy.cuda.Stream) -> None:
        compute_done = cupy.cuda.Event(disable_timing=True)
        compute_done.record(self.compute_stream)
        stream.wait_event(compute_done)

    def from_gpu(self, memory_obj: PinnedMemoryObj, block_ids: List[int]) -> None:
        self._after_compute(self.store_stream)
        with self.store_stream:
            for layer_id, kv in enumerate(self.kv_layers):
                for i, block_id in enumerate(block_ids):
                    cupy.asnumpy(
                        kv[block_id],
                        stream=self.store_stream,
                        out=memory_obj.array[layer_id, i],
                        blocking=False,
                    )
            ready = cupy.cuda.Event(disable_timing=True)
            ready.record(self.store_stream)
        memory_obj.ready_event = ready

    def to_gpu(self, memory_obj: PinnedMemoryObj, block_ids: List[int]) -> cupy.cuda.Event:
        self._after_compute(self.load_stream)
        with self.load_stream:
            for layer_id, kv in enumerate(self.kv_layers):
                for i, block_id in enumerate(block_ids):
                    kv[block_id].set(memory_obj.array[layer_id, i], stream=self.load_stream)
            loaded = cupy.cuda.Event(disable_timing=True)
            loaded.record(self.load_stream)
        self.compute_stream.wait_event(loaded)
        return loaded
