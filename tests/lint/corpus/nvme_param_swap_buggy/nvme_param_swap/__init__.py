from .partitioned_param_swapper import AsyncPartitionedParameterSwapper

__all__ = ["AsyncPartitionedParameterSwapper"]
