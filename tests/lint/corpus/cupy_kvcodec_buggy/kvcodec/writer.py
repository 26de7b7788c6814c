# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import BinaryIO, Dict, Optional, Tuple
import logging
import queue
import struct
import threading

# First Party
from kvcodec.constants import FILE_MAGIC, HEADER_FMT, WRITER_QUEUE_DEPTH
from kvcodec.encoder import EncodedChunk

logger = logging.getLogger(__name__)


class ChunkFileWriter(threading.Thread):
    """Appends encoded chunks to a single segment file."""

    def __init__(self, fh: BinaryIO):
        super().__init__(name="lmc-chunk-writer", daemon=True)
        self.fh = fh
        self.queue: "queue.Queue[Optional[EncodedChunk]]" = queue.Queue(WRITER_QUEUE_DEPTH)
        self.index: Dict[str, Tuple[int, int]] = {}
        self._offset = 0

    def run(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                break
            item.quantized.synchronize()
            rows, hidden = item.payload.shape
            key_bytes = item.key.encode()
            header = struct.pack(HEADER_FMT, FILE_MAGIC, rows, hidden, len(key_bytes))
            # expect: KVG003
            blob = item.scales.tobytes() + item.payload.tobytes()
            n = self.fh.write(header + key_bytes + blob)
            self.index[item.key] = (self._offset, n)
            self._offset += n
        self.fh.flush()
        logger.info("chunk writer stopped after %d entries", len(self.index))

    def close(self) -> None:
        self.queue.put(None)
        self.join()
