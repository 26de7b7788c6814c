"""The per-file summary: an ordered list of stream-ordering facts per function.

A summary is what the engine keeps of a file after parsing it once. Rules and the
ordering analysis read summaries only, never source, so summaries are plain, picklable
data and can be cached by content hash.

Names of streams, events and tensors are *references*: the dotted source spelling of
the expression after import aliases are resolved (``self._store_stream``,
``torch.cuda.current_stream()``). The reader also classifies each reference where the
code says what it is (a stream created with ``torch.cuda.Stream()``, a tensor allocated
with ``pin_memory=True``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kvguard.lint.findings import Span

# The producer stream of the calling thread: every ``current_stream()``/``default_stream()``
# spelling (torch.cuda, torch.accelerator, platform and accelerator aliases) reads as this.
CURRENT_STREAM = "<current stream>"


class Memory(str, Enum):
    """Where a tensor or buffer lives, as far as the code shows."""

    DEVICE = "device"
    HOST = "host"
    UNKNOWN = "unknown"


# CUmemcpySrcAccessOrder / cudaMemcpySrcAccessOrder values.
ORDER_STREAM = 1
ORDER_DURING_API_CALL = 2
ORDER_ANY = 3
ORDER_NAMES = {0: "INVALID", 1: "STREAM", 2: "DURING_API_CALL", 3: "ANY"}


@dataclass(frozen=True)
class SourceOrder:
    """A source-access-order value that reaches a copy, and where it was spelled."""

    value: int
    spelling: str
    span: Span
    # How it arrived: "argument", "attribute", "default of parameter 'x'", ...
    origin: str


@dataclass(frozen=True)
class Fact:
    span: Span
    # Lines of the enclosing statement, for suppressions and reports.
    statement_lines: tuple[int, int]


@dataclass(frozen=True)
class WaitStream(Fact):
    """``waiter.wait_stream(producer)``: the waiter stream is ordered behind the producer."""

    waiter: str
    producer: str


@dataclass(frozen=True)
class RecordEvent(Fact):
    """``event.record(stream)`` / ``event = stream.record_event()``."""

    event: str
    stream: str


@dataclass(frozen=True)
class WaitEvent(Fact):
    """``waiter.wait_event(event)`` / ``event.wait(waiter)``."""

    waiter: str
    event: str


@dataclass(frozen=True)
class HostSync(Fact):
    """A host-blocking synchronization: the device, a stream or an event."""

    target: str  # "device", a stream reference or an event reference


@dataclass(frozen=True)
class Write(Fact):
    """An in-place write to a tensor on the producer stream (``t.fill_``, ``t[i] = x``)."""

    tensor: str


@dataclass(frozen=True)
class Copy(Fact):
    """A copy launch: the form, its stream, where it reads and writes, its source order."""

    form: str  # e.g. "Tensor.copy_", "cuMemcpyBatchAsync"
    stream: str  # CURRENT_STREAM when issued on the caller's current stream
    source: str  # reference of the source tensor/buffer ("" when not a tensor expression)
    source_memory: Memory
    destination_memory: Memory
    order: SourceOrder | None = None

    @property
    def may_read_device(self) -> bool:
        """Unknown counts as device memory: staying silent is the riskier mistake."""
        return self.source_memory is not Memory.HOST

    @property
    def may_write_host(self) -> bool:
        return self.destination_memory is not Memory.DEVICE

    @property
    def direction(self) -> str:
        """How a report names the direction, saying when it is assumed."""
        if self.source_memory is Memory.DEVICE and self.destination_memory is Memory.HOST:
            return "GPU to host"
        return "GPU to host, assumed: the code does not show where source and destination live"


@dataclass(frozen=True)
class Branch:
    """Alternative paths (if/else, try/except, match): exactly one arm runs."""

    span: Span
    arms: tuple[tuple[Item, ...], ...]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Loop:
    """A loop body: runs zero or more times."""

    span: Span
    body: tuple[Item, ...]


Item = Fact | Branch | Loop


@dataclass(frozen=True)
class FunctionSummary:
    qualname: str
    span: Span
    body: tuple[Item, ...]


@dataclass(frozen=True)
class Suppression:
    line: int
    column: int
    # Empty: every code. Codes are upper-case as written.
    codes: tuple[str, ...]
    file_level: bool = False


@dataclass(frozen=True)
class Diagnostic:
    """Why a file could not be read or parsed (reported as KVG000)."""

    message: str
    line: int = 1
    column: int = 1


@dataclass
class FileSummary:
    path: str
    functions: list[FunctionSummary] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Whether the file passed the token gate and was parsed.
    parsed: bool = False
