"""KVG001: a GPU-to-host copy on a side stream with no barrier behind the producer."""

from __future__ import annotations

from collections.abc import Iterator

from kvguard.lint.findings import Finding, FlowStep
from kvguard.lint.model import ProjectModel
from kvguard.lint.results import MAIN_THREAD
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
with torch.cuda.stream(store_stream):
    cpu_block.copy_(gpu_block, non_blocking=True)
"""
_GOOD = """\
store_stream.wait_stream(torch.cuda.current_stream())  # on the compute thread
with torch.cuda.stream(store_stream):
    cpu_block.copy_(gpu_block, non_blocking=True)
"""


class UnorderedDeviceToHostCopy(Rule):
    code = "KVG001"
    name = "unordered-device-to-host-copy"
    summary = "GPU-to-host copy on a side stream that is not ordered behind the producing stream"
    page = RulePage(
        flags=(
            "A copy that reads GPU memory into host memory (`dst.copy_(src)`, `.cpu()`, "
            "`.to('cpu')`, `cudaMemcpyAsync` with a device-to-host kind, batch copies) issued on a "
            "stream other than the caller's current stream, where some path to the copy carries no "
            "barrier behind the producer stream taken after the producer's last write of the "
            "source. Barriers: `S.wait_stream(P)`, `S.wait_event(E)` or `E.wait(S)` with E recorded "
            "on the producer, or a host-blocking sync (`torch.cuda.synchronize()`, `P.synchronize()`, "
            "`E.synchronize()`). `record_stream` is not a barrier: it only keeps memory alive. A "
            "copy shown to read host memory or to write GPU memory is not this rule's. A copy "
            "whose sides the code places neither way is uncertain: it is reported only with "
            "`--include-uncertain`, marked as such, and never fixed. So is one that a blocking "
            "`.tolist()` / `.item()` of a tensor the code does not place follows on the "
            "producer's thread, after its writes (if that tensor is on the GPU, the host waited), "
            "and one reached only past a wait skipped where what it waits on is unset (`if "
            "done is not None: done.synchronize()`, `if ready: stream.wait_event(ready)`: by the "
            "code's own account nothing was pending on the path that skips it)."
        ),
        why=(
            "Streams run independently. A store on a side stream that is not ordered behind the "
            "compute stream can read a KV block while the model is still writing it. The copy "
            "captures a half-written block, the block's prefix hash is stamped anyway, and later "
            "requests are answered from poisoned context. Nothing fails and nothing is logged. This "
            "shipped in vLLM's SimpleCPUOffloadConnector (0.19.0 to 0.23.0)."
        ),
        bad=_BAD,
        good=_GOOD,
        fix=(
            "On the thread that owns the compute stream, after the last write of the blocks, call "
            "`store_stream.wait_stream(torch.cuda.current_stream())`, or record an event there "
            "(`event.record()`) and make the store stream wait on it (`store_stream.wait_event(event)`) "
            "before the copy, wherever the copy is issued. If the copy uses `cuMemcpyBatchAsync`, also "
            "pass STREAM source order (KVG002). `kvguard check --fix` inserts "
            "`S.wait_stream(torch.cuda.current_stream())` (or the configured producer stream) before "
            "the `with torch.cuda.stream(S):` block when every path to the copy takes that block on "
            "the requesting thread, in the copy's function or one that calls it; before the "
            "function's first such block on S, which then orders the later ones too. Otherwise the "
            "finding says why, and for a copy on another thread where on the requesting thread "
            "the barrier belongs."
        ),
        references=(
            "https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-streams",
            "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",
        ),
    )
    VALID = (
        Example(
            "import torch\n\n"
            "class Snapshot:\n"
            "    def __init__(self, n):\n"
            "        self.gpu = torch.zeros(n, device='cuda')\n"
            "        self.host = torch.empty(n, pin_memory=True)\n"
            "        self.stream = torch.cuda.Stream()\n\n"
            "    def store(self):\n"
            "        current = torch.cuda.current_stream()\n"
            "        if current != self.stream:\n"
            "            self.stream.wait_stream(current)\n"
            "        with torch.cuda.stream(self.stream):\n"
            "            self.host.copy_(self.gpu, non_blocking=True)\n",
            note="the wait is skipped only where the stream is the current one",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    stream.wait_stream(torch.cuda.current_stream())\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            note="barrier with wait_stream",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    done = torch.cuda.Event()\n"
            "    done.record()\n"
            "    stream.wait_event(done)\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            note="event recorded on the current stream, waited on the store stream",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    done = torch.cuda.current_stream().record_event()\n"
            "    done.wait(stream)\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            note="record_event on the producer, Event.wait(stream)",
        ),
        Example(
            "import torch\n\n"
            "def snapshot(state, table, stream):\n"
            "    state.ready.wait(stream=stream)\n"
            "    with torch.cuda.stream(stream):\n"
            "        return table.cpu()\n",
            note="an event from elsewhere waited with stream= before the copy",
        ),
        Example(
            "def store(cpu, gpu):\n    cpu.copy_(gpu, non_blocking=True)\n",
            note="copy on the current (producer) stream",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream, flag):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    if flag:\n"
            "        stream.wait_stream(torch.cuda.current_stream())\n"
            "    else:\n"
            "        torch.cuda.synchronize()\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            note="a barrier in every branch",
        ),
        Example(
            "import torch\n\n"
            "def mirror(gpu, stream, n):\n"
            "    twin = torch.empty(n, device='cuda')\n"
            "    with torch.cuda.stream(stream):\n"
            "        twin.copy_(gpu, non_blocking=True)\n",
            note="device-to-device copy",
        ),
        Example(
            "import torch\n\n"
            "def snapshot(stream, n):\n"
            "    host = torch.zeros(n)\n"
            "    with torch.cuda.stream(stream):\n"
            "        return host.to('cpu')\n",
            note=".to('cpu') of a CPU tensor",
        ),
        Example(
            "import torch\n"
            "def store(gpu):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    with torch.cuda.stream(torch.cuda.current_stream()):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            note="a stream context on the current stream",
        ),
        Example(
            "import torch\n\n"
            "def load(gpu, n, stream):\n"
            "    pinned = torch.empty(n, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        gpu.copy_(pinned, non_blocking=True)\n",
            note="a load reads host memory: not a device-to-host copy",
        ),
        Example(
            "import requests\n\ndef fetch(url):\n    return requests.get(url, stream=True)\n",
            note="stream=True is a flag, not a CUDA stream",
        ),
        Example(
            files=shapes.FIXED_EVENT, note="event recorded on the compute stream, waited in the copy thread"
        ),
        Example(files=shapes.FIXED_CALLER, note="barrier in the worker before the queue hand-off"),
        Example(shapes.CONTEXT_MANAGER, note="barrier in a context manager that yields to the copy"),
        Example(files=shapes.sibling(), note="sibling handler: wait_stream in the same function"),
    )
    INVALID = (
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            expect=(Expect(5, 9),),
            note="no barrier",
        ),
        Example(
            "import torch\n"
            "def general_copy(dst, src, stream):\n"
            "    if dst.device.type == 'cpu' and src.is_cuda:\n"
            "        with torch.cuda.stream(stream):\n"
            "            dst.copy_(src, non_blocking=True)\n",
            expect=(Expect(5, 13),),
            note="the test places both sides where the copy runs",
        ),
        Example(
            "import torch\n\n"
            "class Saver:\n"
            "    def __init__(self, n):\n"
            "        self.kv = torch.zeros(n, device='cuda')\n"
            "        self.host = torch.zeros(n, pin_memory=True)\n"
            "        self.stream = torch.cuda.Stream()\n\n"
            "    def save(self):\n"
            "        with torch.cuda.stream(self.stream):\n"
            "            self.host.copy_(self.kv, non_blocking=True)\n"
            "        self.stream.wait_stream(torch.cuda.current_stream())\n",
            expect=(Expect(11, 13),),
            note="the barrier each call takes at its end orders nothing the compute stream writes "
            "before the next call's store",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n"
            "    stream.wait_stream(torch.cuda.current_stream())\n",
            expect=(Expect(5, 9),),
            note="barrier after the copy",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    stream.wait_stream(torch.cuda.current_stream())\n"
            "    gpu.fill_(0)\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            expect=(Expect(7, 9),),
            note="barrier before the producer's last write",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    gpu.record_stream(stream)\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            expect=(Expect(6, 9),),
            note="record_stream is not a barrier",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream, eager):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    if eager:\n"
            "        stream.wait_stream(torch.cuda.current_stream())\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            expect=(Expect(7, 9),),
            note="barrier in one branch only",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    done = torch.cuda.Event()\n"
            "    done.record(stream)\n"
            "    stream.wait_event(done)\n"
            "    with torch.cuda.stream(stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            expect=(Expect(8, 9),),
            note="event recorded on the copy stream itself",
        ),
        Example(
            "import torch\n"
            "def store(gpu):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    load_stream, store_stream = torch.cuda.Stream(), torch.cuda.Stream()\n"
            "    load_stream.wait_stream(torch.cuda.current_stream())\n"
            "    with torch.cuda.stream(store_stream):\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            expect=(Expect(7, 9),),
            note="two streams made on one line: the barrier is on the other one",
        ),
        Example(
            "import torch\n"
            "def store(gpu, stream):\n"
            "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        stream.wait_stream(torch.cuda.current_stream())\n"
            "        cpu.copy_(gpu, non_blocking=True)\n",
            expect=(Expect(6, 9),),
            note="current_stream() inside the block is the store stream itself",
        ),
        Example(
            "import torch\n\n"
            "class Offloader:\n"
            "    def __init__(self, n):\n"
            "        self.stream = torch.cuda.Stream()\n"
            "        self.gpu = torch.empty(n, device='cuda')\n"
            "\n"
            "    def store(self):\n"
            "        ctx = torch.cuda.stream(self.stream)\n"
            "        with ctx:\n"
            "            return self.gpu.cpu()\n",
            expect=(Expect(11, 20),),
            note="an aliased stream context and a .cpu() copy",
        ),
        Example(
            "from cuda.bindings import runtime\n\n"
            "def store(dst, src, nbytes, stream):\n"
            "    runtime.cudaMemcpyAsync(\n"
            "        dst, src, nbytes, runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream.cuda_stream\n"
            "    )\n",
            expect=(Expect(4, 5),),
            note="raw runtime copy on a stream handle",
        ),
        Example(
            files=shapes.BUGGY,
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="worker, queue, copy thread, batch copy in a third module: no barrier anywhere",
        ),
        Example(
            files=shapes.shape(
                store_order=", order=ORDER_STREAM",
                load_order=", order=ORDER_ANY",
                thread_barrier=shapes.COPY_THREAD_WAITS,
            ),
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="wait_stream(current_stream()) in the copy thread waits on the wrong stream",
        ),
        Example(
            files=shapes.shape(
                store_order=", order=ORDER_STREAM",
                load_order=", order=ORDER_ANY",
                caller_barrier=shapes.EVENT_IN_PAYLOAD,
                ready=True,
            ),
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="the event travels in the payload but nobody waits on it",
        ),
        Example(
            files=shapes.shape(
                store_order=", order=ORDER_STREAM",
                load_order=", order=ORDER_ANY",
                caller_barrier=shapes.EVENT_ON_STORE_STREAM,
                ready=True,
                thread_barrier=shapes.WAIT_ON_PAYLOAD_EVENT,
            ),
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="the payload event is recorded on the store stream, not the compute stream",
        ),
        Example(
            files=shapes.shape(
                store_order=", order=ORDER_STREAM",
                load_order=", order=ORDER_ANY",
                caller_barrier=shapes.CALLER_WAITS.replace(
                    "        self.store_stream.wait_stream", "        self.load_stream.wait_stream", 1
                ),
            ),
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="the worker orders the load stream twice and the store stream never",
        ),
        Example(
            shapes.CONTEXT_MANAGER_WITHOUT_BARRIER,
            expect=(Expect(15, 9),),
            note="a context manager that only switches streams",
        ),
        Example(
            files=shapes.sibling(barrier=False),
            expect=(Expect(17, 13, "pkg/handlers.py"),),
            note="sibling handler without its wait_stream",
        ),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        for runs in unordered_by_site(
            model.copy_runs,
            lambda run: run.may_read_device and run.may_write_host and not run.unwritten_source,
        ):
            run = runs[0]
            assert run.stream is not None
            stream = stream_phrase(run.stream)
            if run.earlier_call_wait is not None:
                problem = (
                    f"the event it waits on at line {run.earlier_call_wait} is an earlier call's (this "
                    "code makes a new one each call), recorded before the producer's work for this call"
                )
            elif run.stale_write_line is not None:
                problem = f"its barrier is taken before the producer's write at line {run.stale_write_line}"
            elif run.missed_writer_line is not None:
                problem = (
                    "its barrier orders it behind other streams, not behind the stream that "
                    f"wrote the source at line {run.missed_writer_line}"
                )
            elif run.gap:
                problem = "some paths reach it with no barrier"
            else:
                problem = "no barrier behind the producer stream precedes it"
            if run.thread != MAIN_THREAD:
                problem += f" (it runs on the {run.thread}, whose current stream is not the producer)"
            copy_step = FlowStep(run.path, run.span.line, run.span.column, f"{run.form} on {stream}")
            flow = (*run.flow, *run.gap, copy_step)
            uncertain = "" if run.direction_shown else "the code does not show which way it copies"
            if not uncertain and all(r.on_thread_default_stream for r in runs):
                uncertain = ON_SHARED_DEFAULT_STREAM
            if not uncertain and all(r.maybe_host_synced or r.maybe_ordered for r in runs):
                uncertain = run.maybe_host_synced or run.maybe_ordered
            fix, why_not = barrier_fix(runs, model.producer_streams) if not uncertain else (None, "uncertain")
            if any(r.missed_writer_line is not None for r in runs):
                # The wait a fix adds is behind the current stream, which did not write the source.
                fix, why_not = (
                    None,
                    "the barrier must follow the stream that wrote the source, not the current one",
                )
            hint = (
                "wait on an event recorded on the stream that wrote the source, after its last write"
                if run.missed_writer_line is not None
                else wait_advice(run.stream, "the producer stream")
            )
            yield Finding(
                path=run.path,
                code=self.code,
                message=f"{run.form} ({run.direction}) on {stream} is not ordered behind the producer: "
                + problem,
                span=run.span,
                statement_lines=run.lines,
                flow=flow if len(flow) > 1 else (),
                fix_hint="before the copy is issued, on the thread that produced the data and after its "
                f"last write, {hint}" + (f" (no automatic fix: {why_not})" if fix is None else ""),
                fix=fix,
                uncertain=uncertain,
            )
