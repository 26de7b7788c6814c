import logging
import os
import queue
import struct
import threading

from kvquant.buffers import HostSlotPool

logger = logging.getLogger(__name__)


class ChunkFileWriter(threading.Thread):
    """Drains completed chunks and appends them to a single spill file."""

    def __init__(self, path: str, pool: HostSlotPool, results: "queue.Queue"):
        super().__init__(name="kvquant-writer", daemon=True)
        self.path = path
        self.pool = pool
        self.results = results
        self.bytes_written = 0

    def run(self) -> None:
        with open(self.path, "ab") as fh:
            while True:
                item = self.results.get()
                if item is None:
                    break
                chunk_id, n, slot = item
                try:
                    fh.write(struct.pack("<II", chunk_id, n))
                    fh.write(slot.scales[:n].tobytes())
                    fh.write(slot.q[:n].tobytes())
                    self.bytes_written += 8 + n * (4 + self.pool.cols)
                finally:
                    self.pool.release(slot)
            fh.flush()
            os.fsync(fh.fileno())
        logger.info("Wrote %d bytes to %s", self.bytes_written, self.path)
