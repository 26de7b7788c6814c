"""What the stream-ordering analysis reports: copy launches along paths and early host reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kvguard.lint.facts import Memory, SourceOrder
from kvguard.lint.findings import FlowStep, Span
from kvguard.lint.values import StreamV

MAIN_THREAD = "the requesting thread"
_ENTRY = re.compile(rf"in (?P<function>[\w.]+), on {MAIN_THREAD}")


def entry_step(path: str, name: Span, function: str, thread: str) -> FlowStep:
    """The first step of a path out of an entry point: the function it starts in (its name)."""
    return FlowStep(path, name.line, name.column, f"in {function}, on {thread}")


def where_the_barrier_belongs(flow: tuple[FlowStep, ...]) -> tuple[str, FlowStep] | None:
    """For a path that starts on the requesting thread: the function it starts in and the
    path's first step out of it (the call or hand-off a barrier must precede)."""
    if len(flow) < 2 or (found := _ENTRY.fullmatch(flow[0].message)) is None:
        return None
    return found["function"], flow[1]


@dataclass(frozen=True)
class CopyRun:
    """One copy launch as reached along one path."""

    path: str
    span: Span
    lines: tuple[int, int]
    form: str
    stream: StreamV | None  # None: the caller's current stream (the producer's own)
    source_memory: Memory
    destination_memory: Memory
    order: SourceOrder | None
    ordered: bool
    gap: tuple[FlowStep, ...]
    stale_write_line: int | None
    host_synced: bool
    # The host may have waited for the producer's writes on the requesting thread since they
    # were made (why: a blocking read of a tensor the code does not place, a wait skipped only
    # where what it waits on is unset); "" where the code shows no such wait.
    maybe_host_synced: str
    # The copy's stream may have been ordered behind the producer (why: a wait skipped only
    # where what it waits on is unset); "" where the code shows no such wait.
    maybe_ordered: str
    # Another function orders the copy's stream behind the producer (a method the object's code
    # calls at another time, say), which this path does not show: where it ran, and how.
    ordered_elsewhere: str
    # Where the producer used a load's destination after the barrier (the barrier predates it).
    destination_used_line: int | None
    flow: tuple[FlowStep, ...]
    thread: str
    resolved_stream: bool
    # Where a barrier can go mechanically: before the ``with`` that entered the stream, in the
    # copy's function or one it runs under, on the requesting thread (path, with statement,
    # stream spelling, the device module the block names (``torch.cuda``, ``torch.xpu``,
    # ``get_accelerator()``) and the module that spelling needs imported, if any).
    barrier_site: tuple[str, Span, str, tuple[str, str]] | None = None
    # Why there is none, where the copy runs on the requesting thread.
    no_barrier_site: str = ""
    # The object's earlier calls left its stream ordered behind the producer after their last
    # copy on it: that orders this copy after the producer's work up to then (what a load
    # overwriting a buffer those calls' kernels read needs), not after what came since.
    ordered_by_earlier_call: bool = False
    # Where a stream the project made wrote the source, when the barrier orders the copy's
    # stream behind other streams only (an event recorded on the thread's current stream).
    missed_writer_line: int | None = None
    # The objects whose method call the copy is in (see ``ordered_by_earlier_call``).
    earlier_calls: tuple[tuple[str, str], ...] = ()
    # The destination was allocated on this path, before the copy: no kernel has read it.
    fresh_destination: bool = False
    # The source was allocated on this path and no kernel has written it since (a benchmark
    # copying a fresh buffer back and forth), or work queued on the copy's own stream computed
    # it on this path (``with torch.cuda.stream(s): out = model(x); out.to("cpu", ...)``):
    # there is no producer on another stream to order behind.
    unwritten_source: bool = False
    # The copy's form fixes the destination (``x.cpu()``): it says nothing of the direction.
    implied_destination: bool = False
    blocking: bool = False
    # The destination is what unfollowed callers pass (see ``Unknown.from_caller``).
    destination_from_caller: bool = False
    # The destination is memory wrapped at a raw address (values.TensorV.mapped).
    destination_mapped: bool = False
    # The destination is what a call into code the analysis does not follow returned.
    destination_handed_out: bool = False
    # The destination is a buffer of one of several alike objects one comprehension made (a
    # double buffer), and the host waits on events those objects hold: which object's kernels
    # a wait orders is not told apart.
    destination_pooled: bool = False
    # Reached only where its stream is not known (a function run on its own, whose callers
    # the analysis cannot see, given no stream): only its source access order is judged.
    order_only: bool = False
    # The barrier is a wait on an event an earlier call of the entry point made and recorded
    # (the wait's line): it orders nothing the producer did for this call.
    earlier_call_wait: int | None = None
    # The function the copy is in (module:qualname).
    function: str = ""
    # Where the copy's attributes hint the source lives (``srcLocHint``), if they do.
    source_hint: Memory = Memory.UNKNOWN
    # The code places neither side, and every copy it places in the same stream block goes
    # the one way (a block of loads, or of stores): this copy is taken to go that way.
    direction_by_stream: bool = False

    @property
    def on_side_stream(self) -> bool:
        return self.stream is not None and self.stream.current_of != MAIN_THREAD

    @property
    def on_thread_default_stream(self) -> bool:
        """Issued on another thread's current stream, no stream of its own entered. Unless one
        of the two threads set a stream, that is the producer's own: PyTorch's default stream is
        one per device, shared by every thread."""
        return (
            self.stream is not None
            and self.stream.key.startswith("current@")
            and self.stream.current_of != MAIN_THREAD
        )

    @property
    def may_read_device(self) -> bool:
        return self.source_memory is not Memory.HOST

    @property
    def may_write_host(self) -> bool:
        return self.destination_memory is not Memory.DEVICE

    @property
    def direction(self) -> str:
        """The GPU-to-host direction as far as the code shows it."""
        source, destination = self.source_memory, self.destination_memory
        if self.direction_by_stream:
            way = "GPU to host" if source is Memory.DEVICE else "host to GPU"
            return f"{way}, as every copy the code places in its stream block"
        if source is Memory.DEVICE and destination is Memory.HOST:
            return "GPU to host"
        if destination is Memory.HOST:
            return "into host memory from a source the code does not place"
        if source is Memory.DEVICE:
            return "from GPU memory into a destination the code does not place"
        return "direction not shown: the code places neither source nor destination"

    @property
    def direction_shown(self) -> bool:
        """Whether the code places at least one side of the copy. A destination counts only
        when the code chose it and copies into it asynchronously: ``x.cpu()``'s host result is
        the form's, and a blocking copy into a pinned buffer is as often host staging."""
        if self.direction_by_stream:
            return True
        chosen = not self.implied_destination and not self.blocking
        destination_shown = chosen and self.destination_memory is not Memory.UNKNOWN
        if self.blocking and self.destination_memory is Memory.UNKNOWN:
            # A blocking copy out of GPU memory into memory the code does not place is most
            # often GPU to GPU (weights scattered into parameters): a store would ask for
            # ``non_blocking``.
            return False
        return self.source_memory is not Memory.UNKNOWN or destination_shown


@dataclass(frozen=True)
class PendingCopy:
    """An asynchronous copy into host memory whose completion the host has not waited for."""

    path: str
    line: int
    column: int
    form: str
    destination: str  # how the code spells the destination
    stream_key: str
    time: int
    # A blocking read the code cannot place came since (a ``.tolist()`` of a tensor that may be
    # on the GPU): the host may have waited for this copy. Says where.
    maybe_waited: str = ""
    # Started by an earlier call of the object that holds the buffer (another entry point):
    # code outside the project may wait between the two calls.
    earlier_call: bool = False

    @property
    def established(self) -> bool:
        """Whether the code shows that nothing waited for the copy before a read."""
        return not self.maybe_waited and not self.earlier_call


@dataclass(frozen=True)
class HostRead:
    """The host reading a buffer while a copy into it may still be running."""

    path: str
    span: Span
    lines: tuple[int, int]
    how: str
    copy: PendingCopy
    flow: tuple[FlowStep, ...]
    thread: str
    read: str = ""  # how the code names what it reads, where it names it plainly


@dataclass
class Dependencies:
    """What a result was computed from (kvguard.lint.dependencies): the settings and analysis
    code (one fingerprint), each module by name with its path, code digest and shape, and
    the digests of the units the runs consulted, by module."""

    fingerprint: str = ""
    modules: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    consulted: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class Analysis:
    """What one run of the interpreter found: copy launches and early host reads."""

    runs: list[CopyRun] = field(default_factory=list)
    host_reads: list[HostRead] = field(default_factory=list)
    # Entry points the analysis failed on (an internal error): their paths are not checked.
    failed: list[str] = field(default_factory=list)
    # What the result was computed from: a later run whose code differs only where this
    # result does not depend reuses it.
    dependencies: Dependencies = field(default_factory=Dependencies)
