from .connector import CPUSwapConnectorWorker, SwapConnectorMetadata
from .swapper import BlockSwapper, SwapOutJob

__all__ = [
    "BlockSwapper",
    "CPUSwapConnectorWorker",
    "SwapConnectorMetadata",
    "SwapOutJob",
]
