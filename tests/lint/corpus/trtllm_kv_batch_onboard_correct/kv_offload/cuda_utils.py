from cuda.bindings import runtime as cudart


def check(result):
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error: {cudart.cudaGetErrorString(err)[1]}")
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream():
    return check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def create_event():
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))


def wait_stream(waiter, producer, event) -> None:
    check(cudart.cudaEventRecord(event, producer))
    check(cudart.cudaStreamWaitEvent(waiter, event, 0))


def make_attrs(order) -> cudart.cudaMemcpyAttributes:
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = order
    return attrs
