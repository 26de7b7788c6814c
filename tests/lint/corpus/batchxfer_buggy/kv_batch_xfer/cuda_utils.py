import logging

from cuda.bindings import driver

logger = logging.getLogger("kv_batch_xfer")


class CudaDriverError(RuntimeError):
    pass


def check(err) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(name.decode() if isinstance(name, bytes) else str(name))


def new_event():
    err, event = driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)
    check(err)
    return event


class TransferStream:
    """Non-blocking driver stream that can be ordered after a producer stream."""

    def __init__(self):
        err, self.handle = driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING)
        check(err)
        self._ready = new_event()

    def wait_for(self, producer) -> None:
        (err,) = driver.cuEventRecord(self._ready, producer)
        check(err)
        (err,) = driver.cuStreamWaitEvent(self.handle, self._ready, 0)
        check(err)

    def record(self):
        event = new_event()
        (err,) = driver.cuEventRecord(event, self.handle)
        check(err)
        return event
