import logging
import os

logger = logging.getLogger(__name__)


class SpillFileSink:

    def __init__(self, spill_dir: str, fsync: bool = False):
        os.makedirs(spill_dir, exist_ok=True)
        self._dir = spill_dir
        self._fsync = fsync

    def path_for(self, block_id: int) -> str:
        return os.path.join(self._dir, f"block_{block_id:08d}.bin")

    def write(self, block_id: int, payload: bytes) -> None:
        path = self.path_for(block_id)
        with open(path, "wb") as fh:
            fh.write(payload)
            if self._fsync:
                os.fsync(fh.fileno())
        logger.debug("spilled block %d (%d bytes)", block_id, len(payload))
