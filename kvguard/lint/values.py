"""Abstract values the interpreter computes for expressions.

Each value says what the analysis knows about a runtime object: a stream (which one),
an event, a tensor and where its memory lives, a constant and where it was spelt, a
record of named fields (NamedTuple, ctypes structure, call keywords), an instance of a
project class, a project function, a raw copy entry point, a queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from kvguard.lint import ir
from kvguard.lint.api import platform_twin
from kvguard.lint.facts import Memory
from kvguard.lint.findings import Span


@dataclass(frozen=True)
class Unknown:
    """Nothing is known; ``spelling`` names the expression for messages."""

    spelling: str = ""
    # A parameter of an entry point the project calls from code the analysis could not follow:
    # what the callers pass (a buffer they just allocated, say) is not known.
    from_caller: bool = False


UNKNOWN = Unknown()
# The value of a sentinel ``object()`` starts with this, then where it was made.
SENTINEL = "<object made at "


class StreamEntry(NamedTuple):
    """Where a ``with torch.cuda.stream(x):`` made a stream current."""

    path: str
    span: Span  # the with statement
    spelling: str  # of x, or "" where a barrier placed before the with cannot name it
    # The device module spelt there (``torch.cuda``) and the import that spelling needs.
    device_api: tuple[str, str]
    stack: tuple[str, ...]  # the functions on the way to the with, its own last
    unspelt: str = ""  # why a barrier cannot name it, where it cannot


@dataclass(frozen=True)
class StreamV:
    key: str  # identity: creation site, "current@<thread>", or the spelling of an opaque stream
    label: str  # how reports name it
    current_of: str = ""  # the thread whose current stream this is, if it is one
    # Where a ``with`` block made it current; not part of its identity.
    entered_at: StreamEntry | None = field(default=None, compare=False)


@dataclass(frozen=True)
class EventV:
    key: str
    label: str


@dataclass(frozen=True)
class TensorV:
    """A tensor, or anything derived from one (data pointers, pointer arrays, views)."""

    memory: Memory
    # Which buffer it is, where the code shows it (an allocation or copy site): host reads
    # of a copy's destination are matched by it. Views and pointers keep it.
    key: str = ""
    # An address into the buffer (``t.data_ptr()``, ``base + i * nbytes``), not its bytes:
    # reading one reads no element of the buffer.
    address: bool = False
    # Memory the code wraps at a raw address (a storage built over a data pointer): who else
    # uses it, kernels of this process or other processes it is shared with, is not in the code.
    mapped: bool = False
    # Read off an object the code does not place, by the one class that keeps that field: a
    # guess, which an asynchronous copy from host to host shows wrong.
    guessed: bool = False


@dataclass(frozen=True)
class ConstV:
    value: int | float | str | bytes | bool | None
    spelling: str
    path: str
    span: Span | None
    origin: str = ""  # "default of parameter 'x'", "argument", ...
    # For a parameter default: the call that left the argument out (path, call span, parameter).
    defaulted_at: tuple[str, Span, str] | None = None


@dataclass(frozen=True)
class RecordV:
    type_name: str
    fields: tuple[tuple[str, Value], ...]

    def get(self, name: str) -> Value | None:
        return next((value for key, value in self.fields if key == name), None)


@dataclass(frozen=True)
class SeqV:
    items: tuple[Value, ...]


@dataclass(frozen=True)
class ZipV:
    parts: tuple[Value, ...]


@dataclass(frozen=True)
class FuncV:
    module: str
    qualname: str
    bound: Value | None = None  # the receiver of a bound method
    partial: tuple[Value, ...] = ()  # leading arguments bound by ``functools.partial``
    keywords: tuple[tuple[str, Value], ...] = ()  # keywords it binds (``src_order=ANY``)
    # A nested function's enclosing names, as they are where it is named (``self`` among them).
    closure: tuple[tuple[str, Value], ...] = ()
    # The function itself, as its decorators are given it (not the wrapper they make of it).
    undecorated: bool = False


@dataclass(frozen=True)
class LambdaV:
    """A lambda, with the names it closes over as they were where it was made."""

    module: str
    params: tuple[str, ...]
    body: ir.Expr
    closure: tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class ClassV:
    module: str
    qualname: str


@dataclass(frozen=True)
class ObjectV:
    module: str
    qualname: str  # its class
    site: str = ""  # where it was constructed; "" stands for every instance of the class
    # How the code that reached it spells it (``self.cache`` for an instance the analysis
    # cannot place): its unknown fields are spelt from there.
    alias: str = field(default="", compare=False)


@dataclass(frozen=True)
class ExternalV:
    """A name outside the project (``torch.cuda.Stream``, ``queue.SimpleQueue``), dotted."""

    dotted: str


@dataclass(frozen=True)
class ModuleV:
    """A project module."""

    name: str


@dataclass(frozen=True)
class MethodV:
    """A stream's or event's method taken as a value (``before_copy=done.wait``): calling it
    later calls that method of that stream or event."""

    receiver: StreamV | EventV
    name: str


@dataclass(frozen=True)
class CopyApiV:
    """A raw copy entry point (a bindings function, a ctypes or cuGetProcAddress pointer),
    with the keywords a ``functools.partial`` of it binds."""

    api: str
    keywords: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True)
class QueueV:
    key: str
    label: str


@dataclass(frozen=True)
class QueueGetV:
    """``q.get()``: the statement that assigns it runs once per payload put on the queue."""

    queue: QueueV


@dataclass(frozen=True)
class ContextV:
    """A stream context manager (``torch.cuda.stream(s)``)."""

    stream: StreamV


@dataclass(frozen=True)
class GeneratorContextV:
    """A call of a project ``@contextmanager`` function, run when entered."""

    function: FuncV
    arguments: tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class UnionV:
    """One of several values (two classes assigned to one attribute, an unresolved if)."""

    options: tuple[Value, ...]


Value = (
    Unknown
    | StreamV
    | EventV
    | TensorV
    | ConstV
    | RecordV
    | SeqV
    | ZipV
    | FuncV
    | LambdaV
    | ClassV
    | ObjectV
    | ExternalV
    | ModuleV
    | CopyApiV
    | MethodV
    | QueueV
    | QueueGetV
    | ContextV
    | GeneratorContextV
    | UnionV
)


def options(value: Value) -> tuple[Value, ...]:
    """What a value may be: each option of a union, or the value itself."""
    return value.options if isinstance(value, UnionV) else (value,)


def join(values: list[Value]) -> Value:
    """Several possible values as one."""
    distinct: list[Value] = []
    for value in values:
        for option in options(value):
            if option not in distinct:
                distinct.append(option)
    known = [
        v for v in distinct if not isinstance(v, Unknown) and not (isinstance(v, ConstV) and v.value is None)
    ]
    if not known:
        # None and something unknown: it may be anything, not necessarily None.
        unknown = [v for v in distinct if isinstance(v, Unknown)]
        return unknown[0] if unknown else (distinct[0] if distinct else UNKNOWN)
    if len(known) == 1:
        return known[0]
    handles = [v for v in known if isinstance(v, (StreamV, EventV))]
    if len(handles) == 1 and all(v == handles[0] or v == SeqV((handles[0],)) for v in known):
        # ``values[0] if len(values) == 1 else values`` over ``(stream,)``: the stream itself
        # (a handle is never iterated; a one-element result list is unwrapped).
        return handles[0]
    tensors = [v for v in known if isinstance(v, TensorV)]
    if len(tensors) == len(known):
        memories = {v.memory for v in tensors}
        keys = {v.key for v in tensors}
        return TensorV(
            memories.pop() if len(memories) == 1 else Memory.UNKNOWN,
            keys.pop() if len(keys) == 1 else "",
            all(v.address for v in tensors),
        )
    copies = tuple(v.api for v in known if isinstance(v, CopyApiV))
    if len(copies) == len(known) and (twin := platform_twin(copies)) is not None:
        return CopyApiV(twin)  # one copy under each platform's name: run and named once
    return UnionV(tuple(known[:8]))


def memory_of(value: Value) -> Memory | None:
    """Where a value's memory lives, if it is (derived from) a tensor."""
    if isinstance(value, TensorV):
        return value.memory
    if isinstance(value, UnionV):
        found = {memory_of(option) for option in value.options} - {None}
        # A value the code does not show on some path may be memory anywhere.
        unshown = any(isinstance(option, Unknown) for option in value.options)
        if len(found) == 1 and not unshown:
            return found.pop()
        return Memory.UNKNOWN if found else None
    if isinstance(value, (SeqV, ZipV)):
        items = value.items if isinstance(value, SeqV) else value.parts
        found = {memory_of(item) for item in items} - {None}
        if len(found) == 1:
            return found.pop()
        return Memory.UNKNOWN if found else None
    return None


def host_elements(value: Value) -> bool:
    """A host tensor's elements, not an address into it: what CPU code reading it reads."""
    return isinstance(value, TensorV) and value.memory is Memory.HOST and not value.address


def view_of(value: Value) -> Value:
    """A view, slice or pointer of a tensor: same memory, same buffer."""
    if isinstance(value, (TensorV, Unknown)):
        return value  # an unplaced buffer's view is still that buffer, as spelt
    return taint([value])


def taint(values: list[Value], same_buffer: bool = False) -> Value:
    """The value of an opaque operation on these inputs: derived from their tensors, if any.
    With ``same_buffer`` (an operator over one buffer's address: ``base + block * nbytes``)
    the result is still that buffer, for the writes and reads tracked on it."""
    memories = {m for m in (memory_of(v) for v in values) if m is not None}
    if not memories:
        return UNKNOWN
    addresses = [v for v in values if isinstance(v, TensorV) and v.address]
    if same_buffer and len(addresses) == 1:
        # An address plus offsets (a table of them, an index array) points into its buffer.
        return addresses[0]
    flat = [item for v in values for o in options(v) for item in (o.items if isinstance(o, SeqV) else (o,))]
    placed_items = [v for v in flat if memory_of(v) is not None]
    if placed_items and all(isinstance(v, TensorV) and v.address for v in placed_items):
        # A table built from addresses of one buffer (``(c_uint64 * n)(*ptrs)``) holds them;
        # one built from several buffers' (a layer's each) holds addresses where they live.
        keys = {v.key for v in placed_items if isinstance(v, TensorV)}
        if len(keys) == 1:
            return placed_items[0]
        table = {v.memory for v in placed_items if isinstance(v, TensorV)}
        return TensorV(table.pop() if len(table) == 1 else Memory.UNKNOWN, "", address=True)
    keys = {v.key for v in values if isinstance(v, TensorV)}
    placed = [v for v in values if memory_of(v) is not None]
    key = keys.pop() if same_buffer and len(keys) == 1 and len(placed) == 1 else ""
    return TensorV(memories.pop() if len(memories) == 1 else Memory.UNKNOWN, key)


def buffer_key(value: Value) -> str:
    """Which buffer a value is, where it is one: a tensor's key, or the one key of a value that is
    that buffer or nothing placed (a pointer field that ``close()`` resets)."""
    if isinstance(value, TensorV):
        return value.key
    if isinstance(value, UnionV):
        keys = {option.key for option in value.options if isinstance(option, TensorV)}
        if len(keys) == 1 and all(isinstance(o, TensorV) or memory_of(o) is None for o in value.options):
            return keys.pop()
    return ""
