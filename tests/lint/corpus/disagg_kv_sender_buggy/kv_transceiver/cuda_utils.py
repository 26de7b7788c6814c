from typing import Any

from cuda.bindings import driver


def check(result: Any) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result, )
    if err != driver.CUresult.CUDA_SUCCESS:
        _, msg = driver.cuGetErrorString(err)
        raise RuntimeError(f"CUDA driver error {err}: {msg}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> driver.CUstream:
    return check(
        driver.cuStreamCreate(
            driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def create_event() -> driver.CUevent:
    return check(
        driver.cuEventCreate(
            driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def record_on(stream_handle: int) -> driver.CUevent:
    event = create_event()
    check(driver.cuEventRecord(event, driver.CUstream(stream_handle)))
    return event


def host_alloc(nbytes: int) -> int:
    return int(check(driver.cuMemHostAlloc(nbytes, 0)))
