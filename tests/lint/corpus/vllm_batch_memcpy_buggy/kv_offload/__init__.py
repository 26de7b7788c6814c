from kv_offload.spec import CPUOffloadingSpec, OffloadingConfig
from kv_offload.worker import BatchMemcpyOffloadingHandler

__all__ = ["BatchMemcpyOffloadingHandler", "CPUOffloadingSpec", "OffloadingConfig"]
