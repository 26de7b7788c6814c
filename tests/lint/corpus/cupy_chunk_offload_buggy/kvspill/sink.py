import logging
import os
import queue
import threading

from kvspill.constants import SPILL_SUFFIX

logger = logging.getLogger(__name__)


class DiskSink:
    def __init__(self, root, slab_pool):
        self._root = root
        self._slabs = slab_pool
        self._queue = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._drain, name="kvspill-sink", daemon=True)
        self._worker.start()

    def submit(self, item):
        self._queue.put(item)

    def _drain(self):
        while True:
            item = self._queue.get()
            if item is None:
                return
            key, mem, host, host_scales, _keepalive = item
            path = os.path.join(self._root, key + SPILL_SUFFIX)
            with open(path, "wb") as fh:
                host.tofile(fh)
                if host_scales is not None:
                    host_scales.tofile(fh)
            self._slabs.give_back(mem)
            logger.debug("spilled %s (%d bytes)", key, host.nbytes)

    def close(self):
        self._queue.put(None)
        self._worker.join()
