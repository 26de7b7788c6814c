"""MoE layer with an all-to-all token dispatcher in the shape of Megatron-core's
MoEAlltoAllTokenDispatcher: the split sizes the all-to-all needs on the host are copied to host
memory on a dedicated device-to-host stream at one point of the dispatch (``cuda_dtoh_point``)
and waited for at a later one (``cuda_sync_point``), so the copy overlaps the permutation."""

from moe_dispatch.config import MoEConfig
from moe_dispatch.layer import MoELayer

__all__ = ["MoEConfig", "MoELayer"]
