"""cuda.bindings.runtime batch copies."""
from typing import Sequence

from cuda.bindings import runtime as cudart


class CudaError(RuntimeError):
    pass


def check(ret):
    err, *rest = ret
    if err != cudart.cudaError_t.cudaSuccess:
        raise CudaError(cudart.cudaGetErrorName(err)[1].decode())
    return rest


def location(device: int) -> cudart.cudaMemLocation:
    loc = cudart.cudaMemLocation()
    if device < 0:
        loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeHost
    else:
        loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeDevice
        loc.id = device
    return loc


def batch_copy(dsts: Sequence[int], srcs: Sequence[int], nbytes: int, attrs,
               stream_handle: int) -> None:
    n = len(dsts)
    if n == 0:
        return
    # expect: KVG002
    check(cudart.cudaMemcpyBatchAsync(list(dsts), list(srcs), [nbytes] * n, n,
                                      [attrs], [0], 1, stream_handle))
