"""Multi-module KV offload shapes shared by the rules' examples.

Each shape is the smallest code with the structure of a real offload path: a worker that
requests copies, a backend that hands them to a copy thread through a queue, and a module
that issues ``cuMemcpyBatchAsync`` through a ``cuGetProcAddress`` pointer with attributes
built in a record. ``shape(...)`` switches the parts that decide correctness, so each fixed
shape has mutations that must be flagged.
"""

from __future__ import annotations

MEMOPS = """\
import ctypes
from typing import NamedTuple

from cuda.bindings import driver

ORDER_STREAM = 1
ORDER_ANY = 3


class CopyAttributes(ctypes.Structure):
    _fields_ = [("srcAccessOrder", ctypes.c_uint), ("flags", ctypes.c_uint)]


class CopyPlan(NamedTuple):
    src_ptrs: list
    dst_ptrs: list
    attrs: CopyAttributes
    stream_handle: int


_batch_copy = None


def _entry_point():
    err, fn, _ = driver.cuGetProcAddress(b"cuMemcpyBatchAsync", 12080, 0)
    return fn


def make_plan(src_caches, dst_caches, stream, order{ORDER_DEFAULT}):
    global _batch_copy
    if _batch_copy is None:
        _batch_copy = _entry_point()
    src_ptrs = []
    dst_ptrs = []
    for src, dst in zip(src_caches.values(), dst_caches.values()):
        src_ptrs.append(src.data_ptr())
        dst_ptrs.append(dst.data_ptr())
    attrs = CopyAttributes(srcAccessOrder=order)
    return CopyPlan(src_ptrs, dst_ptrs, attrs, stream.cuda_stream)


def run_plan(plan, blocks):
    _batch_copy(
        plan.dst_ptrs, plan.src_ptrs, None, len(blocks), ctypes.addressof(plan.attrs), None, 1, None,
        plan.stream_handle,
    )
"""

BACKEND = """\
import queue
import threading

import torch

from .memops import ORDER_ANY, ORDER_STREAM, make_plan, run_plan


class Mover:
    def __init__(self):
        self._requests = queue.SimpleQueue()
        self._store_plan = None
        self._load_plan = None

    def start(self, gpu_caches, cpu_caches, load_stream, store_stream):
        self._store_plan = make_plan(gpu_caches, cpu_caches, store_stream{STORE_ORDER})
        self._load_plan = make_plan(cpu_caches, gpu_caches, load_stream{LOAD_ORDER})
        worker = threading.Thread(
            target=self._serve, args=(self._requests, load_stream, store_stream), daemon=True
        )
        worker.start()

    def submit(self, blocks, is_store, ready=None):
        plan = self._store_plan if is_store else self._load_plan
        self._requests.put((blocks, plan, is_store, ready))

    def stop(self):
        self._requests.put(None)

    @staticmethod
    def _serve(requests, load_stream, store_stream):
        while True:
            item = requests.get()
            if item is None:
                return
            blocks, plan, is_store, ready = item
            stream = store_stream if is_store else load_stream
{THREAD_BARRIER}            run_plan(plan, blocks)
"""

WORKER = """\
import torch

from .backend import Mover


class OffloadWorker:
    def __init__(self):
        self._mover = Mover()

    def register(self, gpu_caches, num_blocks):
        cpu_caches = {{}}
        for name in gpu_caches:
            cpu_caches[name] = torch.zeros(num_blocks, 4096, device="cpu", pin_memory=True)
        self.load_stream = torch.cuda.Stream()
        self.store_stream = torch.cuda.Stream()
        self._mover.start(gpu_caches, cpu_caches, self.load_stream, self.store_stream)

    def after_forward(self, store_blocks, load_blocks):
{CALLER_BARRIER}        self._mover.submit(load_blocks, False{READY})
        self._mover.submit(store_blocks, True{READY})
"""

EVENT_IN_PAYLOAD = "        ready = torch.cuda.Event()\n        ready.record(torch.cuda.current_stream())\n"
WAIT_ON_PAYLOAD_EVENT = "            stream.wait_event(ready)\n"
CALLER_WAITS = (
    "        self.store_stream.wait_stream(torch.cuda.current_stream())\n"
    "        self.load_stream.wait_stream(torch.cuda.current_stream())\n"
)
COPY_THREAD_WAITS = "            stream.wait_stream(torch.cuda.current_stream())\n"
EVENT_ON_STORE_STREAM = "        ready = torch.cuda.Event()\n        ready.record(self.store_stream)\n"


def shape(
    *,
    order_default: str = "=ORDER_ANY",
    store_order: str = "",
    load_order: str = "",
    caller_barrier: str = "",
    ready: bool = False,
    thread_barrier: str = "",
) -> dict[str, str]:
    """The three modules, with the parts that decide correctness filled in."""
    return {
        "pkg/__init__.py": "",
        "pkg/memops.py": MEMOPS.replace("{ORDER_DEFAULT}", order_default),
        "pkg/backend.py": BACKEND.replace("{STORE_ORDER}", store_order)
        .replace("{LOAD_ORDER}", load_order)
        .replace("{THREAD_BARRIER}", thread_barrier),
        "pkg/worker.py": WORKER.replace("{CALLER_BARRIER}", caller_barrier)
        .replace("{READY}", ", ready" if ready else "")
        .replace("{{}}", "{}"),
    }


# The buggy release line: no barrier anywhere, ANY from a default parameter value.
BUGGY = shape()
# Fixed: an event recorded on the compute stream travels in the queue payload and the copy
# thread waits on it; stores pass STREAM, loads keep ANY.
FIXED_EVENT = shape(
    store_order=", order=ORDER_STREAM",
    load_order=", order=ORDER_ANY",
    caller_barrier=EVENT_IN_PAYLOAD,
    ready=True,
    thread_barrier=WAIT_ON_PAYLOAD_EVENT,
)
# Fixed: the worker orders both streams behind the compute stream before the hand-off.
FIXED_CALLER = shape(
    store_order=", order=ORDER_STREAM", load_order=", order=ORDER_ANY", caller_barrier=CALLER_WAITS
)


def position(files: dict[str, str], path: str, needle: str) -> tuple[str, int, int]:
    """(path, line, column) of the first occurrence of ``needle`` in one of the files."""
    text = files[path]
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return path, line, column


COPY_AT = position(BUGGY, "pkg/memops.py", "_batch_copy(\n")


CONTEXT_MANAGER = """\
import contextlib

import torch


@contextlib.contextmanager
def ordered(stream):
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        yield


def store(gpu, stream):
    cpu = torch.empty(gpu.shape, pin_memory=True)
    with ordered(stream):
        cpu.copy_(gpu, non_blocking=True)
"""
CONTEXT_MANAGER_WITHOUT_BARRIER = CONTEXT_MANAGER.replace(
    "    stream.wait_stream(torch.cuda.current_stream())\n", ""
)

# The shape of a sibling handler: a barrier in the same function and a source order computed
# from the direction; one instance copies GPU to host, the other host to GPU.
SIBLING = """\
import torch

from . import ops


class Transfer:
    def __init__(self, src_tensors, dst_tensors, gpu_to_cpu):
        self.src_ptrs = torch.tensor([t.data_ptr() for t in src_tensors])
        self.dst_ptrs = torch.tensor([t.data_ptr() for t in dst_tensors])
        self.gpu_to_cpu = gpu_to_cpu
        self.stream = torch.cuda.Stream()

    def transfer(self, sizes):
        stream = self.stream
        stream.wait_stream(torch.cuda.current_stream())
        any_order = not self.gpu_to_cpu
        with torch.cuda.stream(stream):
            ops.swap_blocks_batch(self.src_ptrs, self.dst_ptrs, sizes, is_src_access_order_any=any_order)


def build(gpu_caches, num_blocks):
    cpu_caches = [torch.zeros(num_blocks, 1024, pin_memory=True) for _ in gpu_caches]
    to_host = Transfer(gpu_caches, cpu_caches, gpu_to_cpu=True)
    to_device = Transfer(cpu_caches, gpu_caches, gpu_to_cpu=False)
    return to_host, to_device
"""


def sibling(order_expression: str = "not self.gpu_to_cpu", barrier: bool = True) -> dict[str, str]:
    code = SIBLING.replace("not self.gpu_to_cpu", order_expression)
    if not barrier:
        code = code.replace("        stream.wait_stream(torch.cuda.current_stream())\n", "")
    return {"pkg/__init__.py": "", "pkg/ops.py": "", "pkg/handlers.py": code}
