# SPDX-License-Identifier: Apache-2.0
from cuda.bindings import runtime as cudart


def check_cuda_error(result):
    """Unwrap a cuda-python ``(err, value)`` result, raising on error."""
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(err)
        raise RuntimeError(f"CUDA error: {name.decode()} ({int(err)})")
    if len(result) > 1:
        return result[1]
    return None


def create_transfer_stream() -> int:
    return check_cuda_error(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def create_event() -> int:
    return check_cuda_error(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
