from .constants import SWAP_BUFFER_COUNT, AIO_ALIGNED_BYTES
from .swapper import AsyncPartitionedParameterSwapper, PartitionedParamStatus
from .coordinator import PartitionedParameterCoordinator

__all__ = [
    "SWAP_BUFFER_COUNT",
    "AIO_ALIGNED_BYTES",
    "AsyncPartitionedParameterSwapper",
    "PartitionedParamStatus",
    "PartitionedParameterCoordinator",
]
