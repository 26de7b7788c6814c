from cuda.bindings import runtime as cudart


def CUASSERT(cuda_ret):
    err = cuda_ret[0]
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(
            f"CUDA ERROR: {err}, error code reference: "
            "https://nvidia.github.io/cuda-python/module/cudart.html#cuda.cudart.cudaError_t"
        )
    if len(cuda_ret) > 1:
        return cuda_ret[1]
    return None


def create_stream() -> cudart.cudaStream_t:
    return CUASSERT(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def create_event() -> cudart.cudaEvent_t:
    return CUASSERT(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
