"""Exceptions raised by kvguard.runtime, each naming what to change."""

from __future__ import annotations


class KvguardRuntimeError(Exception):
    """Base class for every error kvguard.runtime raises on purpose."""


class UnsafeSourceOrderError(KvguardRuntimeError, ValueError):
    """A copy asked for an out-of-stream-order read of memory a GPU stream may write."""


class CudaDriverError(KvguardRuntimeError, RuntimeError):
    """A CUDA driver call returned something other than CUDA_SUCCESS."""

    def __init__(self, call: str, code: int, name: str, detail: str) -> None:
        self.call = call
        self.code = code
        self.name = name
        super().__init__(f"{call} failed with {name} ({code}): {detail}")


class BatchCopyError(CudaDriverError):
    """cuMemcpyBatchAsync failed; `failing_copy` says which descriptor, when the driver knows.

    `failing_plan`: which of the call's plans (the backend plans one a request) holds that
    descriptor; None when the driver named none (the CUDA 13 entry point never does, and an
    error of the whole call names none).
    """

    def __init__(
        self, code: int, name: str, detail: str, failing_copy: str, failing_plan: int | None = None
    ) -> None:
        self.failing_copy = failing_copy
        self.failing_plan = failing_plan
        detail = f"{detail}; failing copy: {failing_copy}"
        super().__init__("cuMemcpyBatchAsync", code, name, detail)


class GuardViolation(KvguardRuntimeError, RuntimeError):
    """A copy was about to reach the driver without being ordered behind the compute stream."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)
