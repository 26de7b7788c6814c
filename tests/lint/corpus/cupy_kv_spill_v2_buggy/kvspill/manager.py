"""Front end used by the serving loop."""

from dataclasses import dataclass
import logging

import cupy

from kvspill import streams
from kvspill.backend import LocalDiskBackend, PutTask
from kvspill.pinned import PinnedBlockPool
from kvspill.transfer import copy_to_host_async

logger = logging.getLogger(__name__)


@dataclass
class SpillConfig:
    root: str
    num_pinned_blocks: int = 32
    block_bytes: int = 8 << 20
    spill_dtype: str = "float16"


class SpillManager:
    def __init__(self, config: SpillConfig):
        self.config = config
        self.compute_stream = streams.get_stream(streams.COMPUTE)
        self.offload_stream = streams.get_stream(streams.OFFLOAD)
        self.pool = PinnedBlockPool(config.num_pinned_blocks, config.block_bytes)
        self.backend = LocalDiskBackend(config.root, self.pool)

    def spill(self, key: str, kv_block: cupy.ndarray) -> None:
        if self.backend.contains(key):
            return
        with self.compute_stream:
            packed = cupy.ascontiguousarray(kv_block.astype(self.config.spill_dtype))
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(self.compute_stream)
        self.offload_stream.wait_event(ready)

        lease, raw = self.pool.acquire(packed.nbytes)
        host = raw.view(packed.dtype).reshape(packed.shape)
        done = copy_to_host_async(packed, host, self.offload_stream)
        self.backend.submit_put(PutTask(key, host, done, lease, source=packed))
        logger.debug("Queued spill of %s (%d bytes)", key, packed.nbytes)
