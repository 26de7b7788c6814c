"""``cudaMemcpyBatchAsync`` with one attribute record per direction."""

from cuda.bindings import runtime as cudart

from cpu_offload.copy_config import MAX_BLOCKS_PER_BATCH, PREFER_OVERLAP_WITH_COMPUTE, SRC_ACCESS_ORDER


def _check(result):
    err, *values = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"cudaMemcpyBatchAsync failed: {err}")
    return values


def _location(kind, ordinal):
    loc = cudart.cudaMemLocation()
    loc.type = kind
    loc.id = ordinal
    return loc


def make_attributes(direction, device_ordinal):
    device = _location(cudart.cudaMemLocationType.cudaMemLocationTypeDevice, device_ordinal)
    host = _location(cudart.cudaMemLocationType.cudaMemLocationTypeHost, 0)
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = SRC_ACCESS_ORDER[direction]
    if direction == "store":
        attrs.srcLocHint, attrs.dstLocHint = device, host
    else:
        attrs.srcLocHint, attrs.dstLocHint = host, device
    if PREFER_OVERLAP_WITH_COMPUTE:
        attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs


class BatchCopier:
    def __init__(self, device_ordinal):
        self.attributes = {
            "store": make_attributes("store", device_ordinal),
            "load": make_attributes("load", device_ordinal),
        }

    def copy(self, direction, dsts, srcs, sizes, stream_handle):
        attrs = self.attributes[direction]
        for begin in range(0, len(sizes), MAX_BLOCKS_PER_BATCH):
            end = min(begin + MAX_BLOCKS_PER_BATCH, len(sizes))
            _check(
                # expect: KVG002
                cudart.cudaMemcpyBatchAsync(
                    dsts[begin:end], srcs[begin:end], sizes[begin:end], end - begin, [attrs], [0], 1, stream_handle
                )
            )
