from dataclasses import dataclass, field
from enum import Enum

AIO_BLOCK_SIZE = 1048576
AIO_QUEUE_DEPTH = 8
AIO_THREAD_COUNT = 1
AIO_ALIGNED_BYTES = 1024
SWAP_FILE_SUFFIX = ".tensor.swp"


class PartitionedParamStatus(Enum):
    # Partitioned parameters are present and ready for use
    AVAILABLE = 1
    # partitioned params are in some non-memory device
    NOT_AVAILABLE = 2
    # partitioned params are being read from some non-memory device.
    INFLIGHT = 3


@dataclass
class AioConfig:
    block_size: int = AIO_BLOCK_SIZE
    queue_depth: int = AIO_QUEUE_DEPTH
    thread_count: int = AIO_THREAD_COUNT
    single_submit: bool = False
    overlap_events: bool = True


@dataclass
class NVMeSwapConfig:
    nvme_path: str
    buffer_count: int = 5
    buffer_size: int = 100_000_000
    aio: AioConfig = field(default_factory=AioConfig)

    def aligned_numel(self, numel: int, element_size: int) -> int:
        per = AIO_ALIGNED_BYTES // element_size
        return ((numel + per - 1) // per) * per
