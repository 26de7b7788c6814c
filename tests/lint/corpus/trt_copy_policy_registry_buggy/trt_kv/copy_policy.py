"""Copy policies: how the driver is asked to run the batch copies of one direction.
Deployments can register their own policy under a direction's name."""

from typing import Callable, Dict, Type

from cuda.bindings import driver

_Order = driver.CUmemcpySrcAccessOrder
_Loc = driver.CUmemLocationType

COPY_POLICIES: Dict[str, Type["CopyPolicy"]] = {}


def register_copy_policy(direction: str) -> Callable[[Type["CopyPolicy"]], Type["CopyPolicy"]]:

    def wrap(cls: Type["CopyPolicy"]) -> Type["CopyPolicy"]:
        COPY_POLICIES[direction] = cls
        return cls

    return wrap


class CopyPolicy:
    src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    src_location = _Loc.CU_MEM_LOCATION_TYPE_DEVICE
    dst_location = _Loc.CU_MEM_LOCATION_TYPE_DEVICE
    prefer_overlap_with_compute = True

    def __init__(self, device_id: int):
        self.device_id = device_id

    def attributes(self) -> driver.CUmemcpyAttributes:
        attrs = driver.CUmemcpyAttributes()
        attrs.srcAccessOrder = self.src_access_order
        attrs.srcLocHint.type = self.src_location
        attrs.srcLocHint.id = self.device_id
        attrs.dstLocHint.type = self.dst_location
        attrs.dstLocHint.id = self.device_id
        if self.prefer_overlap_with_compute:
            attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        return attrs


@register_copy_policy("offload")
class OffloadPolicy(CopyPolicy):
    # evicted blocks belong to requests that are not scheduled in this iteration, so no
    # kernel of this iteration writes them: let the copy engine pick them up early
    src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    dst_location = _Loc.CU_MEM_LOCATION_TYPE_HOST


@register_copy_policy("onboard")
class OnboardPolicy(CopyPolicy):
    # the secondary pool is pinned host memory that no stream writes
    src_access_order = _Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    src_location = _Loc.CU_MEM_LOCATION_TYPE_HOST
