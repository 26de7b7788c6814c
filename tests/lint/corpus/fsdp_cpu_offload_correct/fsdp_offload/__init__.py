from .flat_param import FlatParamHandle
from .offload import CPUOffloadPolicy, OffloadManager

__all__ = ["CPUOffloadPolicy", "FlatParamHandle", "OffloadManager"]
