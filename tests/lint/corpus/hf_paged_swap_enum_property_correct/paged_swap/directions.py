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
        if self is SwapDirection.OUT:
            # GPU blocks the compute stream has just written: the stream's wait on that work
            # only gates the read if the source is read in stream order
            return _Order.cudaMemcpySrcAccessOrderStream
        # pinned host blocks: nothing writes them while a swap-in of them is in flight
        return _Order.cudaMemcpySrcAccessOrderAny
