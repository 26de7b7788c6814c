from __future__ import annotations

from dataclasses import dataclass

from cuda import cudart


class CudaRuntimeError(RuntimeError):
    pass


def check(result):
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise CudaRuntimeError(f"CUDA runtime error {err}: {msg}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


@dataclass
class CudaStream:
    handle: cudart.cudaStream_t

    @classmethod
    def create(cls) -> "CudaStream":
        return cls(check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking)))

    def synchronize(self) -> None:
        check(cudart.cudaStreamSynchronize(self.handle))


@dataclass
class CudaEvent:
    handle: cudart.cudaEvent_t

    @classmethod
    def create(cls) -> "CudaEvent":
        return cls(check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming)))

    def record(self, stream: CudaStream) -> None:
        check(cudart.cudaEventRecord(self.handle, stream.handle))

    def wait(self, stream: CudaStream) -> None:
        check(cudart.cudaStreamWaitEvent(stream.handle, self.handle, 0))

    def query(self) -> bool:
        err = cudart.cudaEventQuery(self.handle)[0]
        return err == cudart.cudaError_t.cudaSuccess

    def synchronize(self) -> None:
        check(cudart.cudaEventSynchronize(self.handle))
