"""Copies through raw entry points: the cuda-python driver and runtime (``cuMemcpyAsync``,
``cudaMemcpyBatchAsync``), ctypes pointers to them, and vLLM's block-copy ops. Each is a
``RawCopy`` entry of ``kvguard.lint.api.RAW_COPIES``; this module reads its arguments."""

from __future__ import annotations

from kvguard.lint import ir
from kvguard.lint.api import (
    ADDRESS_WRAPPERS,
    COPY_APIS,
    KIND_MEMORY,
    LOCATION_TYPE_NAMES,
    LOCATION_TYPES,
    MODULE_LAUNCHES,
    RAW_COPIES,
    RAW_WRITES,
    RawWrite,
)
from kvguard.lint.evaluator import Evaluator, Handled
from kvguard.lint.facts import ORDER_ANY, Memory, SourceOrder
from kvguard.lint.pathstate import Frame, PathState
from kvguard.lint.reading import (
    _UNPLACED,
    _kind,
    _opaque_stream,
    _order_in,
    _stream_options,
    _truth,
    _written,
)
from kvguard.lint.values import (
    UNKNOWN,
    ConstV,
    CopyApiV,
    ExternalV,
    RecordV,
    SeqV,
    StreamV,
    TensorV,
    UnionV,
    Unknown,
    Value,
    buffer_key,
    memory_of,
    options,
)


class RawCopyApi(Evaluator):
    def _raw_copy_function(
        self,
        dotted: str,
        last: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """A raw copy entry point called by name, fetched with ``getattr`` or ``cuGetProcAddress``,
        and objects standing for the memory at an address."""
        if last in COPY_APIS:
            return self._copy_api(last, args, kwargs, call, frame, state)
        if last in RAW_WRITES:
            return UNKNOWN, self._raw_write(RAW_WRITES[last], args, kwargs, call, frame, state)
        for module, (launcher, launch) in MODULE_LAUNCHES.items():
            if last == launcher and dotted.startswith(f"{module}."):
                return UNKNOWN, self._raw_write(launch, args, kwargs, call, frame, state)
        if last in ADDRESS_WRAPPERS and args and isinstance(args[0], TensorV):
            return args[0], state  # ``Buffer.from_handle(ptr, size)``: the memory at that address
        if (
            last == "getattr"
            and len(args) >= 2
            and isinstance(args[1], ConstV)
            and args[1].value in COPY_APIS
        ):
            return CopyApiV(str(args[1].value)), state
        if last == "cuGetProcAddress" and args and isinstance(args[0], ConstV):
            name = args[0].value
            text = name.decode() if isinstance(name, bytes) else str(name)
            if text in COPY_APIS:
                return SeqV((UNKNOWN, CopyApiV(text), UNKNOWN)), state
        return None

    def _raw_write(
        self,
        layout: RawWrite,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> PathState:
        """A memset or a kernel launch: GPU memory written on the stream it is given."""
        positional = args[layout.stream] if len(args) > layout.stream else None
        given = kwargs.get("hStream", kwargs.get("stream", positional))
        where = self._running_on(frame, state, _opaque_stream(given) if given is not None else None)
        at = layout.destination
        written = list(args) if at is None else list(args[at : at + 1])
        for value in written:
            for buffer in _buffers_in(value):
                self._kernel_wrote(buffer.key, call.span.line, where, state)
        if at is None:
            # A kernel runs there, whatever buffers it is given (cuda.core's device ``Buffer``).
            self._kernel_streams.add(where)
            state.launched = self._clock
        return state

    def _copy_api(
        self,
        api: str,
        args: tuple[Value, ...] | list[Value],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> tuple[Value, PathState]:
        args = list(args)
        layout = RAW_COPIES[api]
        stream: Value | None = self._stream(frame, state)
        destination = args[layout.destination] if len(args) > layout.destination else UNKNOWN
        source = args[layout.source] if len(args) > layout.source else UNKNOWN
        explicit = next((kwargs[k] for k in layout.stream_keywords if k in kwargs), None)
        if explicit is not None:
            stream = explicit
        elif layout.stream is not None and len(args) >= max(layout.stream_needs, layout.stream + 1):
            stream = args[layout.stream]
        kind = _kind(args[layout.kind]) if layout.kind is not None and len(args) > layout.kind else None
        # The form or the kind says where each side lives; the buffers stay what they are.
        sides = (
            layout.memory
            if layout.memory is not None
            else KIND_MEMORY.get(kind)
            if kind is not None
            else None
        )
        if sides is not None:
            source, destination = (
                TensorV(memory, _buffer_key(value))
                for memory, value in zip(sides, (source, destination), strict=True)
            )
        else:
            # A batch copy's location hints place a destination the pointers do not. Not its
            # source: attributes made for loads and reused for stores (their ANY order then
            # reading the GPU) are the hazard KVG002 looks for.
            hinted = _location_hint([*args, *kwargs.values()], "dstLocHint")
            if hinted is not None and memory_of(destination) in (None, Memory.UNKNOWN):
                destination = TensorV(hinted, _buffer_key(destination))
        order = _order_in(list(kwargs.items()))
        if layout.ordered:  # in attributes passed positionally or by another keyword
            order = order or _order_in([("", a) for a in (*args, *kwargs.values())])
        flag = kwargs.get("is_src_access_order_any")
        if flag is not None and _truth(flag) is True:
            where = flag if isinstance(flag, ConstV) else None
            order = SourceOrder(
                ORDER_ANY,
                where.spelling if where else "True",
                where.span if where and where.span else call.span,
                "passed as is_src_access_order_any=True",
                where.path if where else frame.module.path,
            )
        # On one of several streams (``pool.pop() if pool else Stream()``): a path on each.
        by_key: dict[str, StreamV] = {}
        for option in _stream_options(stream) if stream is not None else ():
            by_key.setdefault(option.key, option)
        streams: list[StreamV | None] = list(by_key.values())
        if len(streams) < 2:
            streams = [stream if stream is None or isinstance(stream, StreamV) else _opaque_stream(stream)]
        spelled = (
            call.args[layout.destination]
            if len(call.args) > layout.destination and not call.star_args
            else None
        )
        written = _written(self._identity(destination, spelled, frame), spelled) if spelled else ("", "")
        # Called through a name a caller handed in: the copy is spelt at that caller's call.
        site = frame.copy_site if isinstance(call.func, ir.Name) or frame.wraps_copy else None
        source_hint = _location_hint([*args, *kwargs.values()], "srcLocHint") or Memory.UNKNOWN
        for one in streams:
            state = self._copy(
                call,
                api,
                frame,
                state,
                one,
                source,
                destination,
                "",
                order,
                written=written,
                site=site,
                source_hint=source_hint,
            )
        return UNKNOWN, state


def _buffer_key(value: Value) -> str:
    """The identity of the buffer a raw copy's side points into, where the code shows one."""
    if isinstance(value, Unknown):
        return f"{_UNPLACED}{value.spelling}" if value.spelling else ""
    return buffer_key(value)


def _buffers_in(value: Value, depth: int = 0) -> list[TensorV]:
    """The GPU buffers a launch argument points into (a kernel's parameter tuple holds them)."""
    if isinstance(value, TensorV):
        return [value] if value.key and value.memory is not Memory.HOST else []
    if depth > 3:
        return []
    parts: tuple[Value, ...] = ()
    if isinstance(value, SeqV):
        parts = value.items
    elif isinstance(value, UnionV):
        parts = value.options
    elif isinstance(value, RecordV):
        parts = tuple(field for _, field in value.fields)
    return [buffer for part in parts for buffer in _buffers_in(part, depth + 1)]


def _location_hint(values: list[Value], field: str, depth: int = 0) -> Memory | None:
    """Where copy attributes among call arguments hint a side lives (``field``: ``srcLocHint``
    or ``dstLocHint``); None where none does, or the attributes of several copies disagree."""
    found: set[Memory] = set()
    for value in values:
        for option in options(value):
            if isinstance(option, SeqV) and depth < 2:
                inner = _location_hint(list(option.items), field, depth + 1)
                found |= {inner} if inner is not None else set()
            hint = option.get(field) if isinstance(option, RecordV) else None
            kind = hint.get("type") if isinstance(hint, RecordV) else None
            memory = _location_memory(kind) if kind is not None else None
            if memory is not None:
                found.add(memory)
    return found.pop() if len(found) == 1 else None


def _location_memory(kind: Value) -> Memory | None:
    """The memory a CUmemLocationType / cudaMemLocationType value names."""
    if isinstance(kind, ConstV) and isinstance(kind.value, int) and not isinstance(kind.value, bool):
        return LOCATION_TYPES.get(kind.value)
    if isinstance(kind, ExternalV):
        return LOCATION_TYPE_NAMES.get(kind.dotted.rsplit(".", 1)[-1])
    return None
