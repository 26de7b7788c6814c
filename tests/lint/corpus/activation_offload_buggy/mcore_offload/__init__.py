from .config import ActivationOffloadConfig
from .manager import PipelineOffloadManager
from .offload_module import OffloadedSubmodule, forward_step_with_offload

__all__ = [
    "ActivationOffloadConfig",
    "PipelineOffloadManager",
    "OffloadedSubmodule",
    "forward_step_with_offload",
]
