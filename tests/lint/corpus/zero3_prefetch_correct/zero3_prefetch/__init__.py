from .partition_parameters import ZeroParamStatus, convert_to_zero_param, iter_params
from .partitioned_param_coordinator import PartitionedParameterCoordinator
from .parameter_offload import DeepSpeedZeRoOffload

__all__ = [
    "DeepSpeedZeRoOffload",
    "PartitionedParameterCoordinator",
    "ZeroParamStatus",
    "convert_to_zero_param",
    "iter_params",
]
