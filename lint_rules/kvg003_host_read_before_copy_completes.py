"""KVG003: the host reads a buffer that an asynchronous GPU-to-host copy may still be writing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath

from kvguard.lint.findings import Finding, FlowStep
from kvguard.lint.model import ProjectModel
from kvguard.lint.results import HostRead
from kvguard.lint.rule import Example, Expect, Rule, RulePage

_BAD = """\
host.copy_(gpu_block, non_blocking=True)
tokens = host.tolist()            # the copy may not have landed yet
"""
_GOOD = """\
host.copy_(gpu_block, non_blocking=True)
done = torch.cuda.Event()
done.record()
...
done.synchronize()                # the host waits for the copy
tokens = host.tolist()
"""


_QUEUES = """\
import queue
import threading

import torch


def fetcher(requests, results, stream):
    while True:
        gpu = requests.get()
        host = torch.empty(gpu.shape, pin_memory=True)
        with torch.cuda.stream(stream):
            host.copy_(gpu, non_blocking=True)
{WAIT}        results.put(host)


def consume(results):
    while True:
        host = results.get()
        print(host.tolist())


def main(gpu):
    requests, results = queue.Queue(), queue.Queue()
    stream = torch.cuda.Stream()
    threading.Thread(target=fetcher, args=(requests, results, stream)).start()
    threading.Thread(target=consume, args=(results,)).start()
    requests.put(gpu)
"""


class HostReadBeforeCopyCompletes(Rule):
    code = "KVG003"
    name = "host-read-before-copy-completes"
    summary = "Host reads a buffer before the asynchronous GPU-to-host copy into it has completed"
    page = RulePage(
        flags=(
            "A host read (`.tolist()`, `.item()`, `.tobytes()`, `.tofile()`, `bytes()`, "
            "`int()`/`float()`, `numpy.asarray()`, `torch.save()`, `pickle.dump()`, `file.write()`, "
            "`os.write()`, compressors and checksums such as `zlib.compress()`, and CPU computation "
            "on a host tensor: `.sum()`, `.any()`, `.eq()` and "
            "the other reductions and conversions, operators such as `host > 0` or `n - host`) "
            "of a buffer that an asynchronous copy from GPU memory writes "
            "(`copy_(..., non_blocking=True)`, `.to('cpu', non_blocking=True)`, `cudaMemcpyAsync` and "
            "the other raw copies, cupy `get(stream=...)`), where some path from the copy to the read "
            "has no host wait for it: `event.synchronize()` on an event recorded after the copy, "
            "`stream.synchronize()` of the copy's stream, `torch.cuda.synchronize()`, a "
            "branch taken only when `event.query()` returned True, or a blocking copy on the same "
            "stream. `.numpy()` and `memoryview()` are views, not reads: reading them is. Calls, returns, "
            "object fields and queue hand-offs are followed; a wait on an "
            "event or stream the analysis cannot place counts as waiting for everything. A copy that "
            "one method of an object leaves running, read by another method called from outside the "
            "project, is uncertain (the caller may wait between the calls), unless the project never "
            "waits for that copy's stream, the device or an event anywhere. Only files "
            "that launch copies or name a stream, a thread, a queue or `non_blocking=True` are read."
        ),
        why=(
            "A non-blocking copy into pinned memory returns before the bytes land. The host then "
            "reads whatever the buffer held before: stale token ids, an old block, a checksum of "
            "the wrong data. The read itself succeeds, so nothing reports the error."
        ),
        bad=_BAD,
        good=_GOOD,
        fix=(
            "Record an event on the copy's stream right after the copy and call `event.synchronize()` "
            "before the first host read (or poll `event.query()` and read only once it is True). "
            "If the host needs the data at once, make the copy blocking instead."
        ),
        references=("https://docs.pytorch.org/docs/stable/notes/cuda.html#asynchronous-execution",),
    )
    VALID = (
        Example(
            "import torch\n\n"
            "def fetch(gpu, n):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    host.copy_(gpu, non_blocking=True)\n"
            "    done = torch.cuda.Event()\n"
            "    done.record()\n"
            "    done.synchronize()\n"
            "    return host.tolist()\n",
            note="event recorded after the copy, synchronized before the read",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu):\n"
            "    host = gpu.to('cpu', non_blocking=True)\n"
            "    torch.cuda.synchronize()\n"
            "    return host.numpy()\n",
            note="device-wide synchronize",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu, n, stream):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        host.copy_(gpu, non_blocking=True)\n"
            "    stream.synchronize()\n"
            "    return host.tolist()\n",
            note="the copy's stream synchronized",
        ),
        Example(
            "import torch\n\n"
            "def poll(gpu, n):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    host.copy_(gpu, non_blocking=True)\n"
            "    ready = torch.cuda.Event()\n"
            "    ready.record()\n"
            "    if ready.query():\n"
            "        return host.tolist()\n"
            "    return None\n",
            note="read only in the branch where event.query() is True",
        ),
        Example(
            "import torch\n\n"
            "def poll(gpu, n):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    host.copy_(gpu, non_blocking=True)\n"
            "    ready = torch.cuda.Event()\n"
            "    ready.record()\n"
            "    while not ready.query():\n"
            "        pass\n"
            "    return host.tolist()\n",
            note="busy-wait on event.query()",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu, n):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    host.copy_(gpu)\n"
            "    return host.tolist()\n",
            note="blocking copy",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu, n, stream):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        host.copy_(gpu, non_blocking=True)\n"
            "        torch.cuda.current_stream().synchronize()\n"
            "    return host.tolist()\n",
            note="current_stream() inside the stream block is the copy's stream",
        ),
        Example(
            "import torch\n\n"
            "def upload(host, n):\n"
            "    gpu = torch.empty(n, device='cuda')\n"
            "    gpu.copy_(host, non_blocking=True)\n"
            "    return host.tolist()\n",
            note="a host-to-GPU copy: reading its host source is fine",
        ),
        Example(
            files={
                "pkg/__init__.py": "",
                "pkg/fetch.py": "import torch\n\n"
                "def start(gpu, host):\n"
                "    host.copy_(gpu, non_blocking=True)\n"
                "    event = torch.cuda.Event()\n"
                "    event.record()\n"
                "    return event\n",
                "pkg/use.py": "import torch\n\n"
                "from pkg.fetch import start\n\n"
                "def step(gpu, n):\n"
                "    host = torch.empty(n, pin_memory=True)\n"
                "    event = start(gpu, host)\n"
                "    event.synchronize()\n"
                "    return host.tolist()\n",
            },
            note="copy in another module, the returned event synchronized before the read",
        ),
        Example(
            _QUEUES.replace("{WAIT}", "        stream.synchronize()\n"),
            note="copy thread synchronizes its stream before handing the buffer on",
        ),
    )
    INVALID = (
        Example(
            "import torch\n\n"
            "def fetch(gpu, n):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    host.copy_(gpu, non_blocking=True)\n"
            "    return host.tolist()\n",
            expect=(Expect(6, 12),),
            note="read right after a non-blocking copy",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu):\n"
            "    host = gpu.to('cpu', non_blocking=True).numpy()\n"
            "    return host.tolist()\n",
            expect=(Expect(5, 12),),
            note=".to('cpu', non_blocking=True), a numpy view, then .tolist()",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu):\n"
            "    host = gpu.to(torch.device('cpu'), non_blocking=True)\n"
            "    return host.tolist()\n",
            expect=(Expect(5, 12),),
            note="torch.device('cpu') as the destination",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu, n, stream, path):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    with torch.cuda.stream(stream):\n"
            "        host.copy_(gpu, non_blocking=True)\n"
            "    torch.cuda.current_stream().synchronize()\n"
            "    with open(path, 'wb') as out:\n"
            "        out.write(memoryview(host.numpy()))\n",
            expect=(Expect(9, 9),),
            note="synchronizing the wrong stream, then writing the buffer to disk",
        ),
        Example(
            "import torch\n\n"
            "def fetch(gpu, n):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    done = torch.cuda.Event()\n"
            "    done.record()\n"
            "    host.copy_(gpu, non_blocking=True)\n"
            "    done.synchronize()\n"
            "    return host[0].item()\n",
            expect=(Expect(9, 12),),
            note="event recorded before the copy",
        ),
        Example(
            "import torch\n\n"
            "def poll(gpu, n):\n"
            "    host = torch.empty(n, pin_memory=True)\n"
            "    host.copy_(gpu, non_blocking=True)\n"
            "    ready = torch.cuda.Event()\n"
            "    ready.record()\n"
            "    if not ready.query():\n"
            "        print(host.tolist())\n",
            expect=(Expect(9, 15),),
            note="read in the branch where the copy is known unfinished",
        ),
        Example(
            files={
                "pkg/__init__.py": "",
                "pkg/buffers.py": "import torch\n\n"
                "class Staging:\n"
                "    def __init__(self, n):\n"
                "        self.host = torch.empty(n, pin_memory=True)\n"
                "        self.stream = torch.cuda.Stream()\n\n"
                "    def pull(self, gpu):\n"
                "        with torch.cuda.stream(self.stream):\n"
                "            self.host.copy_(gpu, non_blocking=True)\n",
                "pkg/runner.py": "import torch\n\n"
                "from pkg.buffers import Staging\n\n"
                "def step(gpu):\n"
                "    staging = Staging(16)\n"
                "    staging.pull(gpu)\n"
                "    torch.cuda.current_stream().synchronize()\n"
                "    return staging.host.tolist()\n",
            },
            expect=(Expect(9, 12, "pkg/runner.py"),),
            note="copy on the object's side stream in one module; another syncs the current stream and reads",
        ),
        Example(
            _QUEUES.replace("{WAIT}", ""),
            expect=(Expect(19, 15),),
            note="copy thread hands the buffer to a consumer thread through a queue, nobody waits",
        ),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        # One finding per statement: its first read, or the first whose hazard the code
        # establishes (no blocking read it cannot place, nor an earlier call, between copy and read).
        first: dict[tuple[str, int, int], HostRead] = {}
        for read in model.host_reads:
            site = (read.path, *read.lines)
            if site not in first or (not first[site].copy.established and read.copy.established):
                first[site] = read
        for read in first.values():
            copy = read.copy
            uncertain = ""
            if copy.maybe_waited:
                uncertain = (
                    f"{copy.maybe_waited} may have waited for the copy (the code does not show "
                    "whether its tensor is on the GPU)"
                )
            elif copy.earlier_call:
                uncertain = (
                    "an earlier call of the object started the copy: whether its caller waits "
                    "between the two calls is not shown"
                )
            yield Finding(
                path=read.path,
                code=self.code,
                message=f"{read.how} reads `{read.read or copy.destination}` while the {copy.form} into it "
                f"({_where(copy.path, copy.line, read.path)}) may still be running: no host wait for "
                "that copy precedes the read on some path",
                span=read.span,
                statement_lines=read.lines,
                flow=(
                    FlowStep(
                        copy.path, copy.line, copy.column, f"{copy.form} into `{copy.destination}` starts"
                    ),
                    *read.flow,
                    FlowStep(read.path, read.span.line, read.span.column, f"{read.how} reads it"),
                ),
                fix_hint="record an event on the copy's stream after the copy and call `.synchronize()` on "
                "it before the read",
                uncertain=uncertain,
            )


def _where(path: str, line: int, reader: str) -> str:
    return f"line {line}" if path == reader else f"{PurePath(path).name}:{line}"
