from .param_swapper import PartitionedParamSwapper, PartitionedParamStatus

__all__ = ["PartitionedParamSwapper", "PartitionedParamStatus"]
