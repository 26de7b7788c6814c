# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List

import torch
from cuda.bindings import driver


def check(result, what: str = "CUDA driver call"):
    err = result[0] if isinstance(result, tuple) else result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"{what} failed with {name}")
    return result[1] if isinstance(result, tuple) and len(result) > 1 else None


def torch_current_stream() -> driver.CUstream:
    return driver.CUstream(torch.cuda.current_stream().cuda_stream)


class DriverStream:
    """A non-blocking driver stream with a small ring of reusable events."""

    def __init__(self, name: str, num_events: int = 4):
        self.name = name
        self.handle = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate")
        flags = driver.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self._events: List[driver.CUevent] = [check(driver.cuEventCreate(flags), "cuEventCreate")
                                              for _ in range(num_events)]
        self._next = 0

    def _take_event(self) -> driver.CUevent:
        event = self._events[self._next]
        self._next = (self._next + 1) % len(self._events)
        return event

    def record(self) -> driver.CUevent:
        return self.record_on(self.handle)

    def record_on(self, stream) -> driver.CUevent:
        event = self._take_event()
        check(driver.cuEventRecord(event, stream), f"cuEventRecord({self.name})")
        return event

    def wait(self, event: driver.CUevent) -> None:
        check(driver.cuStreamWaitEvent(self.handle, event, 0), f"cuStreamWaitEvent({self.name})")
