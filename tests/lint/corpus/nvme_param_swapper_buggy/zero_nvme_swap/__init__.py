from .param_swapper import AsyncPartitionedParameterSwapper
from .swap_config import AioConfig, NVMeSwapConfig, PartitionedParamStatus

__all__ = ["AsyncPartitionedParameterSwapper", "AioConfig", "NVMeSwapConfig", "PartitionedParamStatus"]
