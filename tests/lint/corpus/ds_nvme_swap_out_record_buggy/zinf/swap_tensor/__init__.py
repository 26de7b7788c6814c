from .param_swapper import PartitionedParamSwapper, SwapStatus

__all__ = ["PartitionedParamSwapper", "SwapStatus"]
