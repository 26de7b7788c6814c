"""KVG004: a copy into GPU memory on a side stream that is not ordered behind the compute stream."""

from __future__ import annotations

from collections.abc import Iterator

from kvguard.lint.facts import Memory
from kvguard.lint.findings import Finding, FlowStep
from kvguard.lint.model import ProjectModel
from kvguard.lint.results import MAIN_THREAD, CopyRun
from kvguard.lint.rule import Example, Expect, Rule, RulePage
from lint_rules import offload_shapes as shapes
from lint_rules.stream_barrier import (
    ON_SHARED_DEFAULT_STREAM,
    barrier_fix,
    stream_phrase,
    unordered_by_site,
    wait_advice,
)

_BAD = """\
with torch.cuda.stream(load_stream):
    gpu_blocks.copy_(pinned_blocks, non_blocking=True)
"""
_GOOD = """\
load_stream.wait_stream(torch.cuda.current_stream())  # on the compute thread
with torch.cuda.stream(load_stream):
    gpu_blocks.copy_(pinned_blocks, non_blocking=True)
"""

_CLOSING_BARRIER = """\
import torch


class MaskUploader:
    def __init__(self, rows):
        self.mask = torch.zeros(rows, 64, dtype=torch.int32, device="cuda")
        self.copy_stream = torch.cuda.Stream()

    def apply(self, logits, host_mask):
        with torch.cuda.stream(self.copy_stream):
            self.mask[: len(host_mask)].copy_(host_mask, non_blocking=True)
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.copy_stream)
        apply_mask_kernel(logits, self.mask)
{END}
"""


class UnorderedLoadToDevice(Rule):
    code = "KVG004"
    name = "unordered-load-to-device"
    summary = "Host-to-GPU load on a side stream that is not ordered behind the compute stream"
    page = RulePage(
        flags=(
            "A copy shown to write GPU memory from memory that is not shown to be GPU memory, or to "
            "read host memory into memory that is not shown to be host memory (`gpu.copy_(host)`, "
            "`cudaMemcpyAsync` with a host-to-device kind, batch copies and `swap_blocks` out of "
            "pinned host buffers), issued on a stream other than the "
            "requesting thread's current stream, where some path reaches it with no barrier behind "
            "that stream: `S.wait_stream(P)`, `S.wait_event(E)` / `E.wait(S)` with E recorded on "
            "the producer, or a host-blocking sync. The same paths as KVG001 are followed (calls, "
            "queues, copy threads). A destination the same entry point allocated before the copy "
            "is not flagged: no kernel has read it yet. A destination that is a parameter of a "
            "function the project calls only from code the analysis cannot follow is uncertain "
            "(its callers may have just allocated it): shown with `--include-uncertain`, never "
            "fixed; so is one reached only past a wait skipped where what it waits on is unset "
            "(`if last_use is not None: stream.wait_event(last_use)`: by the code's own account "
            "no kernel was using the destination), a copy out of host memory into what a call into "
            "code the analysis does not follow just returned (`backend.allocate(shape).tensor`: it "
            "may be host memory, and if not, it was just handed out), and a load into one of "
            "several alike objects one comprehension made (`[IOPair() for _ in range(2)]`, a "
            "double buffer) where the host "
            "waits on events those objects hold: the analysis does not tell the objects apart, so "
            "whether the compute stream still reads this one is not shown. So is a load that a "
            "blocking `.tolist()` / `.item()` of a tensor the code does not place follows on the "
            "producer's thread (if that tensor is on the GPU, the host waited for the kernels that "
            "read the destination). The source access order "
            "is not this rule's concern: ANY is fine for a pinned host source."
        ),
        why=(
            "A load overwrites GPU blocks. The scheduler hands a load blocks it just freed, and "
            "the compute stream may still have kernels queued that read them (write-after-read). "
            "A load on an unordered side stream can land first, and those kernels then read the "
            "loaded data instead of what they were launched with."
        ),
        bad=_BAD,
        good=_GOOD,
        fix=(
            "As for stores: on the thread that owns the compute stream, when the load is requested, "
            "call `load_stream.wait_stream(torch.cuda.current_stream())`, or record an event there "
            "and make the load stream wait on it before the copy. `kvguard check --fix` inserts the "
            "`wait_stream` before the `with torch.cuda.stream(S):` block under the same conditions "
            "as for KVG001."
        ),
        references=("https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-streams",),
    )
    VALID = (
        Example(
            "import torch\n\n"
            "def load(gpu, n, stream):\n"
            "    pinned = torch.empty(n, pin_memory=True)\n"
            "    stream.wait_stream(torch.cuda.current_stream())\n"
            "    with torch.cuda.stream(stream):\n"
            "        gpu.copy_(pinned, non_blocking=True)\n",
            note="barrier before the load",
        ),
        Example(
            "import torch\n\n"
            "def load(gpu, n):\n"
            "    pinned = torch.empty(n, pin_memory=True)\n"
            "    gpu.copy_(pinned, non_blocking=True)\n",
            note="load on the compute stream itself",
        ),
        Example(
            "import torch\n\n"
            "def store(cpu, n, stream):\n"
            "    gpu = torch.empty(n, device='cuda')\n"
            "    stream.wait_stream(torch.cuda.current_stream())\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            note="a store: KVG001's concern",
        ),
        Example(
            "import torch\n\n"
            "def copy_into(backend, src_objs, stream):\n"
            "    pinned = torch.empty(64, pin_memory=True)\n"
            "    for src in src_objs:\n"
            "        obj = backend.allocate(src.shape)\n"
            "        with torch.cuda.stream(stream):\n"
            "            obj.tensor.copy_(pinned, non_blocking=True)\n"
            "    stream.synchronize()\n",
            note="out of host memory into what an allocator the code does not place just handed out: "
            "uncertain, so not reported by default",
        ),
        Example(files=shapes.FIXED_EVENT, note="loads and stores both wait on the compute event"),
        Example(files=shapes.FIXED_CALLER, note="the worker orders both streams before the hand-off"),
        Example(files=shapes.sibling(), note="sibling handler: wait_stream before either direction"),
        Example(
            _CLOSING_BARRIER.replace("{END}", "        self.copy_stream.wait_stream(compute)"),
            note="each call ends by ordering the copy stream behind the kernel that reads the buffer, "
            "so the next call's load finds it ordered",
        ),
        Example(
            _CLOSING_BARRIER.replace("{END}", "        self.copy_stream.wait_stream(compute)").replace(
                "    def apply(self, logits, host_mask):\n",
                "    def apply(self, logits, host_mask):\n"
                "        if host_mask is None:\n"
                "            return\n",
            ),
            note="a call that returns early copies nothing, so it leaves the stream as the last "
            "call left it: ordered",
        ),
    )
    INVALID = (
        Example(
            "import torch\n\n"
            "def load(gpu, n, stream):\n"
            "    pinned = torch.empty(n, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        gpu.copy_(pinned, non_blocking=True)\n",
            expect=(Expect(6, 9),),
            note="no barrier",
        ),
        Example(
            "from cuda.bindings import runtime\n\n"
            "def load(dst, src, nbytes, stream):\n"
            "    runtime.cudaMemcpyAsync(\n"
            "        dst, src, nbytes, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice, stream.cuda_stream\n"
            "    )\n",
            expect=(Expect(4, 5),),
            note="raw runtime copy, host-to-device kind",
        ),
        Example(
            "import torch\n\n"
            "def load(gpu, n, stream):\n"
            "    pinned = torch.empty(n, pin_memory=True)\n"
            "    stream.wait_stream(stream)\n"
            "    with torch.cuda.stream(stream):\n"
            "        gpu.copy_(pinned, non_blocking=True)\n",
            expect=(Expect(7, 9),),
            note="a stream waiting on itself orders nothing",
        ),
        Example(
            _CLOSING_BARRIER.replace("{END}", "").replace(
                "        compute = torch.cuda.current_stream()\n",
                "        compute = torch.cuda.current_stream()\n"
                "        self.copy_stream.wait_stream(compute)\n",
            ),
            expect=(Expect(11, 13),),
            note="the copy stream is ordered after this call's load, not after the kernel that reads "
            "the buffer: the next call's load may overwrite it while that kernel runs",
        ),
        Example(
            files=shapes.BUGGY,
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="loads out of the pinned caches on the copy thread: no barrier anywhere",
        ),
        Example(
            files=shapes.shape(
                store_order=", order=ORDER_STREAM",
                load_order=", order=ORDER_ANY",
                caller_barrier=shapes.CALLER_WAITS.replace(
                    "        self.load_stream.wait_stream(torch.cuda.current_stream())\n", ""
                ),
            ),
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="the worker orders the store stream and forgets the load stream",
        ),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        for runs in unordered_by_site(
            model.copy_runs,
            lambda run: (
                _is_load(run.source_memory, run.destination_memory)
                and not run.ordered_by_earlier_call
                and not run.fresh_destination
            ),
            ordered=_ordered_load,
        ):
            run = runs[0]
            assert run.stream is not None
            stream = stream_phrase(run.stream)
            if run.destination_used_line is not None:
                problem = (
                    "its barrier is taken before the compute stream uses the destination at line "
                    f"{run.destination_used_line}"
                )
            elif run.gap:
                problem = "some paths reach it with no barrier"
            else:
                problem = "no barrier behind the compute stream precedes it"
            if run.thread != MAIN_THREAD:
                problem += f" (it runs on the {run.thread}, whose current stream is not the compute stream)"
            copy_step = FlowStep(run.path, run.span.line, run.span.column, f"{run.form} on {stream}")
            flow = (*run.flow, *run.gap, copy_step)
            direction = (
                run.direction
                if run.direction_by_stream
                else _direction(run.source_memory, run.destination_memory)
            )
            uncertain = (
                "the destination is passed by callers the analysis could not follow, so whether "
                "a kernel still reads it is not shown"
                if all(r.destination_from_caller for r in runs)
                else "the destination is memory the code wraps at a raw address, so which kernels read "
                "it, in this process or in others it is shared with, is not shown"
                if all(r.destination_mapped for r in runs)
                else "the destination is what a call into code the analysis does not follow returned "
                "(an allocator of an object it does not place): whether it is GPU memory a kernel still "
                "reads is not shown"
                if all(r.destination_handed_out and r.destination_memory is not Memory.DEVICE for r in runs)
                else "the destination belongs to one of several alike objects one comprehension made (a "
                "double buffer) and the host waits on events those objects hold: which object the compute "
                "stream still reads is not told apart"
                if all(r.destination_pooled for r in runs)
                else (ON_SHARED_DEFAULT_STREAM if all(r.on_thread_default_stream for r in runs) else "")
            )
            if not uncertain and all(r.ordered_elsewhere for r in runs):
                # The destination's readers on the compute stream may all precede that wait (an
                # optimizer step before the next backward's hooks): which of them it covers, the
                # code does not show.
                uncertain = (
                    f"{run.ordered_elsewhere} makes this stream wait in a call this path does not "
                    "show, which may come after every kernel that reads the destination"
                )
            if not uncertain and all(r.maybe_host_synced or r.maybe_ordered for r in runs):
                # A blocking read of a tensor the code does not place (``ids.tolist()``): if it is
                # on the GPU, the host waited for the kernels that read the destination.
                uncertain = run.maybe_host_synced or run.maybe_ordered
            fix, why_not = barrier_fix(runs, model.producer_streams) if not uncertain else (None, "uncertain")
            yield Finding(
                path=run.path,
                code=self.code,
                message=f"{run.form} ({direction}) writes GPU memory on {stream} without waiting for the "
                f"compute stream, which may still read the destination: {problem}",
                span=run.span,
                statement_lines=run.lines,
                flow=flow if len(flow) > 1 else (),
                fix_hint="before the copy is issued, on the thread whose compute stream uses the "
                f"destination, {wait_advice(run.stream, 'the compute stream')}"
                + (f" (no automatic fix: {why_not})" if fix is None else ""),
                fix=fix,
                uncertain=uncertain,
            )


def _ordered_load(run: CopyRun) -> bool:
    """A barrier precedes the load, and the compute stream did not use the destination after
    it. A later write of a host source does not matter to a load: any barrier orders it."""
    barrier = run.ordered or run.stale_write_line is not None or run.missed_writer_line is not None
    return barrier and run.destination_used_line is None


def _is_load(source: Memory, destination: Memory) -> bool:
    """Host to GPU, as far as the code shows where either side lives."""
    if source is Memory.DEVICE or destination is Memory.HOST:
        return False
    return destination is Memory.DEVICE or source is Memory.HOST


def _direction(source: Memory, destination: Memory) -> str:
    if source is Memory.HOST and destination is Memory.DEVICE:
        return "host to GPU"
    if destination is Memory.DEVICE:
        return "into GPU memory from a source the code does not place"
    if source is Memory.HOST:
        return "from host memory into a destination the code does not place"
    return "host to GPU, assumed: the code does not show where both sides live"
