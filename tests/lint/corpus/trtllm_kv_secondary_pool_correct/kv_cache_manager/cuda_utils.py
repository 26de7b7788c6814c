import enum

from cuda import cudart


def CUASSERT(cuda_ret):
    err = cuda_ret[0]
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(
            f"CUDA ERROR: {err}, error code reference: "
            "https://nvidia.github.io/cuda-python/module/cudart.html#cuda.cudart.cudaError_t"
        )
    if len(cuda_ret) > 1:
        return cuda_ret[1] if len(cuda_ret) == 2 else cuda_ret[1:]
    return None


class StreamPriority(enum.IntEnum):
    LOW = 0
    HIGH = 1


def create_priority_stream(priority: StreamPriority) -> cudart.cudaStream_t:
    least, greatest = CUASSERT(cudart.cudaDeviceGetStreamPriorityRange())
    value = greatest if priority == StreamPriority.HIGH else least
    return CUASSERT(cudart.cudaStreamCreateWithPriority(cudart.cudaStreamNonBlocking, value))


def create_event() -> cudart.cudaEvent_t:
    return CUASSERT(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))


def event_done(event: cudart.cudaEvent_t) -> bool:
    (err,) = cudart.cudaEventQuery(event)
    if err == cudart.cudaError_t.cudaErrorNotReady:
        return False
    CUASSERT((err,))
    return True
