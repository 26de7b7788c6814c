"""A CPU stand-in for the CUDA pieces OrderedCopyBackend touches, so its real threads, grouping,
guard, event pools and verification run without a GPU.

The guard's driver event calls are stand-ins that log every record and wait on integer handles
(`SimEventCalls`), and PyTorch-level events and waits are logged too, so a test can tell which
barrier a backend made. Copies are synchronous CPU tensor copies, so stream order holds
trivially: these tests cover the backend's logic; tests/gpu covers the device.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import pytest
import torch

from kvguard.runtime import backend as backend_module
from kvguard.runtime import driver
from kvguard.runtime.batch_copy import CacheLayout, plan_block_copies
from kvguard.runtime.errors import BatchCopyError
from kvguard.runtime.guard import CopyRequest
from kvguard.runtime.order import MemoryKind, SourceOrder, check_source_order, default_source_order

_handles = itertools.count(0x7F0000001000, 0x100)
_local = threading.local()


class SimStream:
    def __init__(self, device: Any = None, priority: int = 0, handle: int | None = None) -> None:
        self.cuda_stream = next(_handles) if handle is None else handle

    def wait_event(self, event: SimEvent) -> None:
        if event.cuda_event:  # as CUDAEvent.block: an event never recorded is not waited on
            TORCH_WAITS.append((self.cuda_stream, event.cuda_event))

    def wait_stream(self, other: SimStream) -> None:
        event = SimEvent()
        event.record(other)
        self.wait_event(event)

    def synchronize(self) -> None:
        return None

    def query(self) -> bool:
        return True  # copies are synchronous: a stream never has work pending


DEFAULT_STREAM = SimStream(handle=0)
TORCH_WAITS: list[tuple[int, int]] = []  # (stream, event) of PyTorch-level waits


class SimEventCalls:
    """The driver's event calls on integer handles; every call is logged, none fails unless
    its name is in `fail` (then it returns CUDA_ERROR_INVALID_VALUE)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail: set[str] = set()
        self.unbound_threads: set[int] = set()  # threads with no current context until bind
        self.not_ready = 0  # queries answered CUDA_ERROR_NOT_READY before the next success
        # While set to an unset Event, a query waits for it: the GPU has not finished the
        # compare yet (only the verify thread asks about an event).
        self.compares_held: threading.Event | None = None

    def as_driver(self) -> driver.EventCalls:
        return driver.EventCalls(self.create, self.record, self.wait, self.destroy, self.bind, self.query)

    def _result(self, name: str, *handles: int) -> int:
        self.calls.append((name, *handles))
        if threading.get_ident() in self.unbound_threads and name != "bind":
            return driver.INVALID_CONTEXT
        return 1 if name in self.fail else 0

    def bind(self, stream: int) -> int:
        code = self._result("bind", stream)
        if code == 0:
            self.unbound_threads.discard(threading.get_ident())
        return code

    def create(self) -> tuple[int, int]:
        handle = next(_handles)
        return self._result("create", handle), handle

    def query(self, event: int) -> int:
        if self.compares_held is not None:
            self.compares_held.wait()
        code = self._result("query", event)
        if code == 0 and self.not_ready > 0:  # asked for: pending this many more times
            self.not_ready -= 1
            return driver.NOT_READY
        return code

    def record(self, event: int, stream: int) -> int:
        return self._result("record", event, stream)

    def wait(self, stream: int, event: int) -> int:
        return self._result("wait", stream, event)

    def destroy(self, event: int) -> int:
        return self._result("destroy", event)


class SimEvent:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.cuda_event = 0  # created lazily at the first record, as PyTorch's
        self.records = 0

    def record(self, stream: SimStream | None = None) -> None:
        stream = current_stream() if stream is None else stream
        if not self.cuda_event:
            self.cuda_event = next(_handles)
        self.records += 1

    def wait(self, stream: SimStream | None = None) -> None:
        (current_stream() if stream is None else stream).wait_event(self)

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None


def current_stream(device: Any = None) -> SimStream:
    stream: SimStream = getattr(_local, "stream", DEFAULT_STREAM)
    return stream


@contextlib.contextmanager
def stream(use: SimStream | None) -> Iterator[None]:
    previous = current_stream()
    _local.stream = use if use is not None else previous
    try:
        yield
    finally:
        _local.stream = previous


class SimPlan(NamedTuple):
    src: list[int]
    dst: list[int]


class SimCopier:
    """BatchCopier's surface: a synchronous copy between two CPU tensor sets, calls recorded."""

    def __init__(
        self,
        src_caches: Mapping[str, torch.Tensor],
        dst_caches: Mapping[str, torch.Tensor],
        stream: SimStream,
        source_order: SourceOrder | None = None,
    ) -> None:
        self.src = dict(src_caches)
        self.dst = dict(dst_caches)
        self.src_layout = CacheLayout.of(self.src)
        self.dst_layout = CacheLayout.of(self.dst)
        host = any(getattr(t, "sim_pinned_host", False) for t in self.src.values())
        self.source_kind = MemoryKind.PINNED_HOST if host else MemoryKind.DEVICE
        order = default_source_order(self.source_kind) if source_order is None else source_order
        check_source_order(self.source_kind, order)
        self.source_order = order
        self.stream = stream
        self.calls: list[tuple[list[int], list[int]]] = []
        self.fail_calls: set[int] = set()  # calls (from 0) that copy nothing and raise
        # Source blocks whose copy the driver refuses: a call copying one copies nothing and
        # raises, naming the plan that holds it as CUDA 12.8's failIdx does, or, with
        # `names_failing` False (CUDA 13's entry point), naming none.
        self.fail_blocks: set[int] = set()
        self.names_failing = True
        self.planned_on: list[str] = []  # the thread of each plan() call
        self.planned_calls = 0  # calls made from plans (copy_planned)

    @property
    def is_store(self) -> bool:
        return self.source_kind is MemoryKind.DEVICE

    def plan(self, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> SimPlan:
        plan = self._checked(src_blocks, dst_blocks)
        self.planned_on.append(threading.current_thread().name)
        return plan

    def _checked(self, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> SimPlan:
        """The block lists, refused by BatchCopier's own planner (its errors and messages)."""
        plan_block_copies(self.src_layout, self.dst_layout, src_blocks, dst_blocks)
        return SimPlan(list(src_blocks), list(dst_blocks))

    def copy_planned(self, plans: Sequence[SimPlan]) -> None:
        self.planned_calls += 1
        self._call([self._checked(p.src, p.dst) for p in plans])

    def copy(self, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> None:
        self._call([self._checked(src_blocks, dst_blocks)])

    def _call(self, plans: list[SimPlan]) -> None:
        """One driver call: every plan's copies, or none of them and a BatchCopyError."""
        src = [b for p in plans for b in p.src]
        dst = [b for p in plans for b in p.dst]
        self.calls.append((src, dst))
        if len(self.calls) - 1 in self.fail_calls:
            raise BatchCopyError(1, "CUDA_ERROR_INVALID_VALUE", "simulated failure", "descriptor 0")
        failing = [i for i, p in enumerate(plans) if self.fail_blocks.intersection(p.src)]
        if failing:
            named = failing[0] if self.names_failing else None
            raise BatchCopyError(
                1, "CUDA_ERROR_INVALID_VALUE", "simulated failure of a copy", f"plan {named}", named
            )
        for name, tensor in self.src.items():
            self.dst[name][dst] = tensor[src]


# memcmp through ctypes, as the compare kernel compares: byte for byte.
_memcmp = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)(
    ("memcmp", ctypes.CDLL(None))
)


class SimKernelCalls:
    """The driver's module and launch calls, for kvguard's compare kernel only: a launch
    compares its pairs at once on the CPU (the arrays and flags it is given are CPU memory
    here). Launches are logged as (stream, pairs); a name in `fail` fails that call."""

    def __init__(self) -> None:
        self.launches: list[tuple[int, int]] = []
        self.sources: list[list[int]] = []  # each launch's source addresses, pair by pair
        self.unloaded = 0
        self.fail: set[str] = set()

    def as_driver(self) -> driver.KernelCalls:
        return driver.KernelCalls(self.load, self.function, self.launch, self.unload)

    def load(self, image: bytes) -> tuple[int, int]:
        assert b".entry kvguard_compare_pairs" in image
        return (1 if "load" in self.fail else 0), next(_handles)

    def function(self, module: int, name: bytes) -> tuple[int, int]:
        return 0, next(_handles)

    def launch(self, function: int, grid_x: int, grid_y: int, block_x: int, stream: int, params: int) -> int:
        if "launch" in self.fail:
            return 1
        src, dst, size, flags = (
            ctypes.c_uint64.from_address(ctypes.c_void_p.from_address(params + 8 * i).value or 0).value
            for i in range(4)
        )
        sources = []
        for pair in range(grid_y):
            a, b, n = (ctypes.c_int64.from_address(base + 8 * pair).value for base in (src, dst, size))
            sources.append(a)
            if _memcmp(a, b, n):
                ctypes.c_int32.from_address(flags + 4 * pair).value = 1
        self.launches.append((stream, grid_y))
        self.sources.append(sources)
        return 0

    def unload(self, module: int) -> int:
        self.unloaded += 1
        return 0


def install(monkeypatch: pytest.MonkeyPatch) -> SimEventCalls:
    """Route the backend's CUDA calls to the stand-ins for one test; the driver's event calls
    are returned."""
    for name, value in {
        "Event": SimEvent,
        "Stream": SimStream,
        "current_stream": current_stream,
        "stream": stream,
        "set_device": lambda device: None,
        "current_device": lambda: 0,
        "synchronize": lambda device=None: None,
    }.items():
        monkeypatch.setattr(torch.cuda, name, value, raising=False)
    monkeypatch.setattr(
        torch._C, "_cuda_getCurrentRawStream", lambda index: current_stream().cuda_stream, raising=False
    )
    monkeypatch.setattr(backend_module, "BatchCopier", SimCopier)
    event_calls = SimEventCalls()
    monkeypatch.setattr(driver, "resolve_event_calls", event_calls.as_driver)
    kernel_calls = SimKernelCalls()
    monkeypatch.setattr(driver, "resolve_kernel_calls", kernel_calls.as_driver)
    monkeypatch.setattr(driver, "device_address", lambda address: address)  # one address space
    SIM.kernel = kernel_calls
    SIM.events = event_calls
    TORCH_WAITS.clear()
    return event_calls


class _Installed:
    kernel: SimKernelCalls
    events: SimEventCalls


SIM = _Installed()  # the stand-ins `install` set up last


def compared_blocks(gpu: dict[str, torch.Tensor]) -> list[list[int]]:
    """The GPU blocks each compare launch checked, in launch order (read from the first
    tensor's pairs)."""
    first = next(iter(gpu.values()))
    base, row = first.data_ptr(), first[0].numel() * first.element_size()
    end = base + len(first) * row
    return [[(a - base) // row for a in sources if base <= a < end] for sources in SIM.kernel.sources]


class GatedBackend(backend_module.OrderedCopyBackend):
    """A backend whose copy thread takes requests only once `gate` is set (so that those
    launched before are grouped as a stalled copy thread finds them); `groups` holds the event
    indices of each group it took."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.gate = threading.Event()
        self.groups: list[list[int]] = []
        super().__init__(*args, start_gate=self.gate, on_group=self._record_group, **kwargs)

    def _record_group(self, requests: list[CopyRequest]) -> None:
        self.groups.append([request.event_idx for request in requests])


def make_caches(
    gpu_blocks: int, cpu_blocks: int, width: int = 8, names: tuple[str, ...] = ("k", "v")
) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """'GPU' blocks hold distinct values (block b, tensor t: 1000 * t + b); host blocks -1."""
    gpu = {
        name: (torch.arange(gpu_blocks, dtype=torch.int32) + 1000 * i)[:, None].repeat(1, width)
        for i, name in enumerate(names)
    }
    cpu = {name: torch.full((cpu_blocks, width), -1, dtype=torch.int32) for name in names}
    for tensor in cpu.values():
        tensor.sim_pinned_host = True  # type: ignore[attr-defined]  # stands in for pinned memory
    return gpu, cpu


def start(
    backend: backend_module.OrderedCopyBackend, gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor]
) -> backend_module.OrderedCopyBackend:
    backend.init(gpu, cpu, torch.device("cuda"), SimStream(), SimStream())  # type: ignore[arg-type]
    return backend


def holds(
    gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor], src: Sequence[int], dst: Sequence[int]
) -> bool:
    return all(torch.equal(cpu[name][list(dst)], gpu[name][list(src)]) for name in gpu)


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether the copy thread brought `condition` about within `timeout` seconds (a bound
    that keeps a broken backend from hanging the suite, not a speed check)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True
