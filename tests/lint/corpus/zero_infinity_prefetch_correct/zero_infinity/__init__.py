from .coordinator import PartitionedParameterCoordinator
from .param_status import ZeroParamStatus, init_offloaded_params
from .stage3_hooks import ZeROInferenceHooks

__all__ = ["PartitionedParameterCoordinator", "ZeroParamStatus", "init_offloaded_params", "ZeROInferenceHooks"]
