"""The CUDA driver calls kvguard needs, through cuda-bindings, with every result checked.

`cuMemcpyBatchAsync` is called through the pointer `cuGetProcAddress` returns, so the ABI is
the one asked for rather than whatever the installed cuda-bindings wraps: CUDA 12.8 introduced
it with a `failIdx` out-parameter, CUDA 13.0 made the plain name the `_v2` entry point without
it. Asking for the 12.8 ABI works on every driver from 12.8 on and keeps `failIdx`, which is
how errors name the failing copy; the 13.0 ABI is the fallback where the old one is gone.
"""

from __future__ import annotations

import ctypes
import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Importing cuda.bindings.driver needs no GPU; libcuda is loaded at the first call.
from cuda.bindings import driver as cuda_driver

from kvguard.runtime.errors import CudaDriverError


def result_name(code: int) -> tuple[str, str]:
    try:
        result = cuda_driver.CUresult(code)
    except ValueError:
        return f"CUresult {code}", "unknown driver result"
    name = result.name
    try:
        err, text = cuda_driver.cuGetErrorString(result)
    except RuntimeError:  # no driver library to ask
        return name, name
    detail = text.decode() if err == cuda_driver.CUresult.CUDA_SUCCESS and text else name
    return name, detail


def check(result: Any, call: str) -> None:
    """Raise CudaDriverError unless `result` is CUDA_SUCCESS."""
    code = int(result)
    if code != 0:
        name, detail = result_name(code)
        raise CudaDriverError(call, code, name, detail)


def _call(call: str, fn: Any, *args: Any) -> Any:
    """Run a cuda-bindings function returning (CUresult, *values); check it, return the values."""
    try:
        result, *values = fn(*args)
    except RuntimeError as exc:  # cuda-pathfinder raises this when libcuda cannot be found
        raise CudaDriverError(
            call,
            -1,
            "DRIVER_NOT_LOADED",
            f"{str(exc).rstrip('.')}; kvguard.runtime copies need an NVIDIA driver with CUDA 12.8 or newer",
        ) from exc
    check(result, call)
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def init_driver() -> int:
    """cuInit(0) and return the driver's CUDA version (1000 * major + 10 * minor)."""
    _call("cuInit", cuda_driver.cuInit, 0)
    return int(_call("cuDriverGetVersion", cuda_driver.cuDriverGetVersion))


class CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CUmemcpyAttributes(ctypes.Structure):
    """CUmemcpyAttributes_v1 from cuda.h (CUDA 12.8 and 13.x share the layout)."""

    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", CUmemLocation),
        ("dstLocHint", CUmemLocation),
        ("flags", ctypes.c_uint),
    ]


class BatchMemcpyAbi(enum.IntEnum):
    """The cudaVersion passed to cuGetProcAddress, which selects the entry point's signature."""

    CUDA_12_8 = 12080  # (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, stream)
    CUDA_13_0 = 13000  # the same without failIdx


_BATCH_ARGS_13_0 = [
    ctypes.c_void_p,  # dsts
    ctypes.c_void_p,  # srcs
    ctypes.c_void_p,  # sizes
    ctypes.c_size_t,  # count
    ctypes.c_void_p,  # attrs
    ctypes.c_void_p,  # attrsIdxs
    ctypes.c_size_t,  # numAttrs
]
_SIGNATURES = {
    BatchMemcpyAbi.CUDA_12_8: ctypes.CFUNCTYPE(
        ctypes.c_int, *_BATCH_ARGS_13_0, ctypes.c_void_p, ctypes.c_void_p
    ),
    BatchMemcpyAbi.CUDA_13_0: ctypes.CFUNCTYPE(ctypes.c_int, *_BATCH_ARGS_13_0, ctypes.c_void_p),
}
_NO_FAILING_COPY = (1 << 64) - 1  # SIZE_MAX: the error does not pertain to one copy


@dataclass(frozen=True)
class BatchMemcpy:
    """A resolved cuMemcpyBatchAsync entry point of a known ABI."""

    abi: BatchMemcpyAbi
    driver_version: int
    _fn: Any

    def __call__(
        self,
        dsts: int,
        srcs: int,
        sizes: int,
        count: int,
        attrs: CUmemcpyAttributes,
        stream: int,
    ) -> tuple[int, int | None]:
        """Issue `count` copies with one attributes entry for all; return (CUresult, failIdx)."""
        attrs_index = ctypes.c_size_t(0)
        if self.abi is BatchMemcpyAbi.CUDA_13_0:
            code = self._fn(
                dsts,
                srcs,
                sizes,
                count,
                ctypes.byref(attrs),
                ctypes.byref(attrs_index),
                1,
                stream,
            )
            return int(code), None
        fail_index = ctypes.c_size_t(_NO_FAILING_COPY)
        code = self._fn(
            dsts,
            srcs,
            sizes,
            count,
            ctypes.byref(attrs),
            ctypes.byref(attrs_index),
            1,
            ctypes.byref(fail_index),
            stream,
        )
        failed = None if fail_index.value == _NO_FAILING_COPY else int(fail_index.value)
        return int(code), failed


_resolved: dict[BatchMemcpyAbi | None, BatchMemcpy] = {}
_resolve_lock = threading.Lock()


def _proc_address(abi: BatchMemcpyAbi, symbol: bytes = b"cuMemcpyBatchAsync") -> int:
    pfn, status = _call(
        f"cuGetProcAddress({symbol.decode()})",
        cuda_driver.cuGetProcAddress,
        symbol,
        int(abi),
        0,
    )
    found = status == cuda_driver.CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_SUCCESS
    return int(pfn) if found and pfn else 0


def resolve_batch_memcpy(abi: BatchMemcpyAbi | None = None) -> BatchMemcpy:
    """Resolve cuMemcpyBatchAsync once per process: `abi`, or 12.8's if available, else 13.0's."""
    with _resolve_lock:
        if abi in _resolved:
            return _resolved[abi]
        version = init_driver()
        candidates = [abi] if abi is not None else list(BatchMemcpyAbi)
        for candidate in candidates:
            if version >= candidate and (address := _proc_address(candidate)):
                entry = BatchMemcpy(candidate, version, _SIGNATURES[candidate](address))
                _resolved[abi] = entry
                return entry
        wanted = ", ".join(str(int(c)) for c in candidates)
        raise CudaDriverError(
            "cuGetProcAddress(cuMemcpyBatchAsync)",
            500,
            "CUDA_ERROR_NOT_FOUND",
            f"the driver (CUDA {version // 1000}.{version % 1000 // 10}) has no "
            f"cuMemcpyBatchAsync for cudaVersion {wanted}; batch copies need a driver for "
            "CUDA 12.8 or newer (R570+)",
        )


_EVENT_DISABLE_TIMING = 0x2  # CU_EVENT_DISABLE_TIMING: the events order work, they time nothing
# PYFUNCTYPE keeps the GIL across these calls: each returns within a microsecond, and releasing
# the GIL for so short a call only invites a thread switch on the requesting thread's hot path.
_CREATE = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint)
_RECORD = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
_WAIT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint)
_DESTROY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_QUERY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


@dataclass(frozen=True)
class EventCalls:
    """The driver's event calls on raw handles, each returning its CUresult as an int.

    `record(event, stream)` is cuEventRecord, `wait(stream, event)` cuStreamWaitEvent (flags 0);
    `create()` makes a timing-free event and returns (CUresult, handle); `query(event)` is
    cuEventQuery (CUDA_ERROR_NOT_READY while work before its record is pending); `destroy(event)`;
    `bind(stream)` makes the stream's context current on the calling thread (a thread that has
    made no CUDA call has none, and the driver then answers CUDA_ERROR_INVALID_CONTEXT). The
    guard makes its barrier with these: a record and a wait it made itself are its evidence.
    """

    create: Callable[[], tuple[int, int]]
    record: Callable[[int, int], int]
    wait: Callable[[int, int], int]
    destroy: Callable[[int], int]
    bind: Callable[[int], int]
    query: Callable[[int], int]


INVALID_CONTEXT = 201  # CUDA_ERROR_INVALID_CONTEXT
NOT_READY = 600  # CUDA_ERROR_NOT_READY


def _bind_stream_context(stream: int) -> int:
    """cuStreamGetCtx, then cuCtxSetCurrent; the first failing CUresult, else 0."""
    code, context = cuda_driver.cuStreamGetCtx(cuda_driver.CUstream(stream))
    if int(code) != 0:
        return int(code)
    (code,) = cuda_driver.cuCtxSetCurrent(context)
    return int(code)


def _entry_points(*symbols: str) -> dict[str, int]:
    """cuInit, then each symbol's address (CUDA 12.8 ABI); CudaDriverError for a missing one."""
    init_driver()
    addresses = {}
    for symbol in symbols:
        address = _proc_address(BatchMemcpyAbi.CUDA_12_8, symbol.encode())
        if not address:
            raise CudaDriverError(
                f"cuGetProcAddress({symbol})", 500, "CUDA_ERROR_NOT_FOUND", f"the driver has no {symbol}"
            )
        addresses[symbol] = address
    return addresses


_event_calls: list[EventCalls] = []


def resolve_event_calls() -> EventCalls:
    """Resolve the event calls once per process; CudaDriverError where the driver lacks one."""
    with _resolve_lock:
        if _event_calls:
            return _event_calls[0]
        addresses = _entry_points(
            "cuEventCreate", "cuEventRecord", "cuStreamWaitEvent", "cuEventDestroy", "cuEventQuery"
        )
        create_fn = _CREATE(addresses["cuEventCreate"])
        record_fn = _RECORD(addresses["cuEventRecord"])
        wait_fn = _WAIT(addresses["cuStreamWaitEvent"])

        def create() -> tuple[int, int]:
            handle = ctypes.c_void_p()
            code = create_fn(ctypes.byref(handle), _EVENT_DISABLE_TIMING)
            return int(code), int(handle.value or 0)

        def wait(stream: int, event: int) -> int:
            return int(wait_fn(stream, event, 0))

        calls = EventCalls(
            create,
            record_fn,
            wait,
            _DESTROY(addresses["cuEventDestroy"]),
            _bind_stream_context,
            _QUERY(addresses["cuEventQuery"]),
        )
        _event_calls.append(calls)
        return calls


# cuModuleLoadData JIT-compiles PTX (milliseconds, once): it releases the GIL. A launch returns
# within microseconds and keeps it, as the event calls do.
_MODULE_LOAD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p)
_MODULE_FUNCTION = ctypes.PYFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p
)
_MODULE_UNLOAD = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_LAUNCH = ctypes.PYFUNCTYPE(
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_uint,
    ctypes.c_uint,
    ctypes.c_uint,  # grid x, y, z
    ctypes.c_uint,
    ctypes.c_uint,
    ctypes.c_uint,  # block x, y, z
    ctypes.c_uint,
    ctypes.c_void_p,
    ctypes.c_void_p,
    ctypes.c_void_p,  # shared bytes, stream, params, extra
)


@dataclass(frozen=True)
class KernelCalls:
    """The driver's module and launch calls on raw handles, each returning its CUresult as an int.

    `load(image)` is cuModuleLoadData and returns (CUresult, module); `function(module, name)`
    cuModuleGetFunction, (CUresult, function); `launch(function, grid_x, grid_y, block_x,
    stream, params)` cuLaunchKernel with `params` the address of the kernel's argument pointers;
    `unload(module)` cuModuleUnload.
    """

    load: Callable[[bytes], tuple[int, int]]
    function: Callable[[int, bytes], tuple[int, int]]
    launch: Callable[[int, int, int, int, int, int], int]
    unload: Callable[[int], int]


_kernel_calls: list[KernelCalls] = []


def resolve_kernel_calls() -> KernelCalls:
    """Resolve the module and launch calls once per process; CudaDriverError where one is missing."""
    with _resolve_lock:
        if _kernel_calls:
            return _kernel_calls[0]
        addresses = _entry_points(
            "cuModuleLoadData", "cuModuleGetFunction", "cuModuleUnload", "cuLaunchKernel"
        )
        load_fn = _MODULE_LOAD(addresses["cuModuleLoadData"])
        function_fn = _MODULE_FUNCTION(addresses["cuModuleGetFunction"])
        launch_fn = _LAUNCH(addresses["cuLaunchKernel"])

        def load(image: bytes) -> tuple[int, int]:
            module = ctypes.c_void_p()
            code = load_fn(ctypes.byref(module), image)
            return int(code), int(module.value or 0)

        def function(module: int, name: bytes) -> tuple[int, int]:
            handle = ctypes.c_void_p()
            code = function_fn(ctypes.byref(handle), module, name)
            return int(code), int(handle.value or 0)

        def launch(function: int, grid_x: int, grid_y: int, block_x: int, stream: int, params: int) -> int:
            return int(launch_fn(function, grid_x, grid_y, 1, block_x, 1, 1, 0, stream, params, None))

        calls = KernelCalls(load, function, launch, _MODULE_UNLOAD(addresses["cuModuleUnload"]))
        _kernel_calls.append(calls)
        return calls


def device_address(host_address: int) -> int:
    """The address a kernel reads pinned host memory at `host_address` through
    (cuPointerGetAttribute, DEVICE_POINTER): the same address under unified addressing.
    CudaDriverError when the memory is not pinned and mapped."""
    pointer = _call(
        "cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_POINTER)",
        cuda_driver.cuPointerGetAttribute,
        cuda_driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        host_address,
    )
    return int(pointer)
