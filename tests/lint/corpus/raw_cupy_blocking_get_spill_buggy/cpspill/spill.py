"""Spills cupy activation buffers to disk through a pinned staging buffer on a side stream."""

import cupy as cp
import cupyx
import numpy as np


class CupySpiller:
    def __init__(self, max_bytes):
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.pinned = cupyx.empty_pinned((max_bytes,), dtype=np.uint8)

    def spill(self, dev_buf, path):
        produced = cp.cuda.get_current_stream().record()
        self.stream.wait_event(produced)
        staged = self.pinned[: dev_buf.nbytes]
        dev_buf.get(stream=self.stream, out=staged, blocking=False)
        with open(path, "wb") as f:
            # expect: KVG003
            f.write(staged.tobytes())

    def checksum(self, dev_buf):
        host = cp.asnumpy(dev_buf)
        return int(host.sum())
