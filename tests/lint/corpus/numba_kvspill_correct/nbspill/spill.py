import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .streams import StreamBundle

logger = logging.getLogger(__name__)


@dataclass
class SpillRequest:
    pairs: list[tuple[int, int]]
    ready: object | None = None


class SpillThread(threading.Thread):
    def __init__(self, d_cache, h_cache, streams: StreamBundle, spill_dir: str,
                 on_released: Callable[[list[int]], None], depth: int) -> None:
        super().__init__(name="kv-spill", daemon=True)
        self.d_cache = d_cache
        self.h_cache = h_cache
        self.streams = streams
        self.spill_dir = spill_dir
        self.on_released = on_released
        self._requests: "queue.Queue[SpillRequest | None]" = queue.Queue(depth)

    def submit(self, req: SpillRequest) -> None:
        self._requests.put(req)

    def stop(self) -> None:
        self._requests.put(None)
        self.join()

    def run(self) -> None:
        while (req := self._requests.get()) is not None:
            try:
                self._handle(req)
            except Exception:
                logger.exception("spill of %d blocks failed", len(req.pairs))

    def _handle(self, req: SpillRequest) -> None:
        copy_stream = self.streams.copy
        if req.ready is not None:
            req.ready.wait(stream=copy_stream)
        for block_id, slot in req.pairs:
            self.d_cache[block_id].copy_to_host(self.h_cache[slot], stream=copy_stream)
        copy_stream.synchronize()
        for block_id, slot in req.pairs:
            self.h_cache[slot].tofile(
                os.path.join(self.spill_dir, f"blk{block_id:06d}.bin"))
        self.on_released([block_id for block_id, _ in req.pairs])
