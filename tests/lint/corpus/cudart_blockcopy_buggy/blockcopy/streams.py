from __future__ import annotations

from dataclasses import dataclass

from cuda.bindings import runtime as cudart

from ._errors import check


def create_stream(priority: int = 0) -> cudart.cudaStream_t:
    return check(
        cudart.cudaStreamCreateWithPriority(cudart.cudaStreamNonBlocking, priority),
        "cudaStreamCreateWithPriority",
    )


def create_event() -> cudart.cudaEvent_t:
    return check(
        cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming),
        "cudaEventCreateWithFlags",
    )


@dataclass
class StreamSet:
    """Compute stream (owned by the model runner) plus a low-priority copy stream."""

    compute: cudart.cudaStream_t
    copy: cudart.cudaStream_t
    owns_compute: bool = False

    @classmethod
    def create(cls, compute: cudart.cudaStream_t | None = None) -> "StreamSet":
        _, least, _greatest = cudart.cudaDeviceGetStreamPriorityRange()
        if compute is None:
            return cls(compute=create_stream(), copy=create_stream(least), owns_compute=True)
        return cls(compute=compute, copy=create_stream(least))

    def destroy(self) -> None:
        check(cudart.cudaStreamDestroy(self.copy), "cudaStreamDestroy")
        if self.owns_compute:
            check(cudart.cudaStreamDestroy(self.compute), "cudaStreamDestroy")
