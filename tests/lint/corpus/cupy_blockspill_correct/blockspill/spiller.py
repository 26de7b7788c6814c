import logging
import queue
import threading
from dataclasses import dataclass
from typing import Dict, Optional

import cupy

from .config import SpillConfig
from .sink import SpillFileSink
from .staging import PinnedStagingRing
from .streams import StreamSet

logger = logging.getLogger(__name__)


@dataclass
class SpillJob:
    block_id: int
    block: cupy.ndarray
    ready: cupy.cuda.Event


class BlockSpiller:

    def __init__(self, config: SpillConfig, streams: StreamSet):
        self._config = config
        self._streams = streams
        self._ring = PinnedStagingRing(config.staging_slots, config.block_bytes)
        self._sink = SpillFileSink(config.spill_dir, config.fsync)
        self._jobs: "queue.Queue[Optional[SpillJob]]" = queue.Queue(maxsize=config.max_pending)
        self._thread = threading.Thread(target=self._drain, name="kv_spill", daemon=True)
        self._thread.start()

    def submit(self, block_id: int, block: cupy.ndarray) -> None:
        """Called on the compute thread right after the kernels writing ``block`` were enqueued."""
        self._jobs.put(SpillJob(block_id, block, self._streams.mark_compute()))

    def _drain(self) -> None:
        spill = self._streams.spill
        with cupy.cuda.Device(self._streams.device_id):
            while True:
                job = self._jobs.get()
                if job is None:
                    break
                idx, staging = self._ring.acquire(job.block)
                try:
                    spill.wait_event(job.ready)
                    job.block.get(stream=spill, out=staging, blocking=False)
                    spill.synchronize()
                    self._sink.write(job.block_id, staging.tobytes())
                finally:
                    self._ring.release(idx)

    def flush(self, resident: Dict[int, cupy.ndarray]) -> None:
        """Stop the drain thread, then write out every block still resident on the device."""
        self._jobs.put(None)
        self._thread.join()
        spill = self._streams.spill
        spill.wait_event(self._streams.mark_compute())
        with cupy.cuda.Device(self._streams.device_id):
            for block_id, block in resident.items():
                idx, staging = self._ring.acquire(block)
                try:
                    cupy.asnumpy(block, stream=spill, out=staging, blocking=False)
                    spill.synchronize()
                    self._sink.write(block_id, staging.tobytes())
                finally:
                    self._ring.release(idx)
        logger.info("flushed %d resident blocks", len(resident))
