"""Swap directions and what each one tells the copy engine."""

import enum

from cuda.bindings import runtime as cudart

_Order = cudart.cudaMemcpySrcAccessOrder
_LocType = cudart.cudaMemLocationType


class SwapDirection(enum.Enum):
    OUT = "device_to_host"
    IN = "host_to_device"

    @property
    def src_location_type(self):
        if self is SwapDirection.OUT:
            return _LocType.cudaMemLocationTypeDevice
        return _LocType.cudaMemLocationTypeHost

    @property
    def dst_location_type(self):
        if self is SwapDirection.OUT:
            return _LocType.cudaMemLocationTypeHost
        return _LocType.cudaMemLocationTypeDevice

    @property
    def src_access_order(self):
        # every swap is queued behind an event on the stream that last used its blocks, so
        # the copy engine may pick the source up as early as it likes
        return _Order.cudaMemcpySrcAccessOrderAny
