"""Defaults for the NVMe parameter swapper (mirrors the `aio` config section)."""
from enum import Enum

AIO_BLOCK_SIZE = 1048576
AIO_QUEUE_DEPTH = 8
AIO_THREAD_COUNT = 4
AIO_SINGLE_SUBMIT = False
AIO_OVERLAP_EVENTS = True

# O_DIRECT friendly alignment for swap buffers
SWAP_ALIGNMENT_BYTES = 4096
SWAP_FILE_SUFFIX = ".tensor.swp"


class PartitionedParamStatus(Enum):
    # partition is resident in GPU memory
    AVAILABLE = 1
    # partition lives only in its swap file
    NOT_AVAILABLE = 2
    # partition is being read back from NVMe
    INFLIGHT = 3
