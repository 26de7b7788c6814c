from ._api import CPUOffloadPolicy, OffloadPolicy
from ._fsdp_param_group import FSDPParamGroup, fully_shard_with_offload

__all__ = ["CPUOffloadPolicy", "FSDPParamGroup", "OffloadPolicy", "fully_shard_with_offload"]
