"""Pinned host staging buffers reused every decode step."""

import cupyx
import numpy

from .config import MAX_BATCH


class HostStaging:
    def __init__(self, max_batch: int = MAX_BATCH):
        self.tokens = cupyx.empty_pinned((max_batch,), dtype=numpy.int32)
        self.logprobs = cupyx.empty_pinned((max_batch,), dtype=numpy.float32)
