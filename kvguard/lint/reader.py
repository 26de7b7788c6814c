"""How code is read: one libcst module in, one FileSummary of ordered facts out.

The reader walks each function body in execution order and records what matters to
stream ordering (see ``facts``). It resolves import aliases, module constants, ``self``
attributes assigned anywhere in the class, local aliases and default parameter values,
and infers tensor memory (device or host) from how tensors are made. It never guesses
from identifier spellings: ``cpu_cache`` is just a name until the code that makes it
says where it lives.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from kvguard.lint.facts import (
    CURRENT_STREAM,
    ORDER_ANY,
    ORDER_DURING_API_CALL,
    ORDER_STREAM,
    Branch,
    Copy,
    FunctionSummary,
    HostSync,
    Item,
    Loop,
    Memory,
    RecordEvent,
    SourceOrder,
    WaitEvent,
    WaitStream,
    Write,
)
from kvguard.lint.findings import Span

# Enum member and constant spellings of CUmemcpySrcAccessOrder / cudaMemcpySrcAccessOrder
# (driver, runtime and cuda.core strings), by their last dotted component.
_ORDER_SPELLINGS = {
    "CU_MEMCPY_SRC_ACCESS_ORDER_STREAM": ORDER_STREAM,
    "CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL": ORDER_DURING_API_CALL,
    "CU_MEMCPY_SRC_ACCESS_ORDER_ANY": ORDER_ANY,
    "cudaMemcpySrcAccessOrderStream": ORDER_STREAM,
    "cudaMemcpySrcAccessOrderDuringApiCall": ORDER_DURING_API_CALL,
    "cudaMemcpySrcAccessOrderAny": ORDER_ANY,
    "hipMemcpySrcAccessOrderStream": ORDER_STREAM,
    "hipMemcpySrcAccessOrderDuringApiCall": ORDER_DURING_API_CALL,
    "hipMemcpySrcAccessOrderAny": ORDER_ANY,
}
_ORDER_STRINGS = {"stream": ORDER_STREAM, "during_api_call": ORDER_DURING_API_CALL, "any": ORDER_ANY}
_ORDER_KEYWORDS = ("srcAccessOrder", "src_access_order")

# cudaMemcpyKind values: (source, destination) memory.
_KIND_MEMORY = {
    0: (Memory.HOST, Memory.HOST),
    1: (Memory.HOST, Memory.DEVICE),
    2: (Memory.DEVICE, Memory.HOST),
    3: (Memory.DEVICE, Memory.DEVICE),
    4: (Memory.UNKNOWN, Memory.UNKNOWN),  # cudaMemcpyDefault: inferred from pointers at run time
}
_UNKNOWN_MEMORY = (Memory.UNKNOWN, Memory.UNKNOWN)
_KIND_SPELLINGS = {
    "cudaMemcpyHostToHost": 0,
    "cudaMemcpyHostToDevice": 1,
    "cudaMemcpyDeviceToHost": 2,
    "cudaMemcpyDeviceToDevice": 3,
    "cudaMemcpyDefault": 4,
    "hipMemcpyHostToHost": 0,
    "hipMemcpyHostToDevice": 1,
    "hipMemcpyDeviceToHost": 2,
    "hipMemcpyDeviceToDevice": 3,
    "hipMemcpyDefault": 4,
    "memcpyHostToHost": 0,
    "memcpyHostToDevice": 1,
    "memcpyDeviceToHost": 2,
    "memcpyDeviceToDevice": 3,
    "memcpyDefault": 4,
}

# Batch copies: (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs[, failIdx], stream).
_BATCH_COPIES = frozenset(
    {"cuMemcpyBatchAsync", "cuMemcpyBatchAsync_v2", "cudaMemcpyBatchAsync", "hipMemcpyBatchAsync"}
)
# Functions that allocate a tensor; ``device=``/``pin_memory=`` say where.
_ALLOCATORS = frozenset(
    {
        "empty",
        "zeros",
        "ones",
        "full",
        "rand",
        "randn",
        "randint",
        "arange",
        "tensor",
        "empty_strided",
        "as_tensor",
        "from_numpy",
    }
)
_LIKE_ALLOCATORS = frozenset({"empty_like", "zeros_like", "ones_like", "full_like", "rand_like"})
# Tensor methods whose result lives where the receiver lives.
_VIEW_METHODS = frozenset(
    {
        "view",
        "reshape",
        "flatten",
        "unflatten",
        "narrow",
        "select",
        "permute",
        "transpose",
        "contiguous",
        "squeeze",
        "unsqueeze",
        "expand",
        "as_strided",
        "view_as",
        "unbind",
        "chunk",
        "split",
        "index_select",
        "clone",
        "detach",
        "float",
        "half",
        "bfloat16",
        "to_dense",
        "t",
        "__getitem__",
    }
)
_DEVICE_SYNC_CALLS = frozenset(
    {"torch.cuda.synchronize", "torch.accelerator.synchronize", "torch.synchronize"}
)
_STREAM_CONTEXTS = frozenset({"stream", "StreamContext"})


def _is_current_stream(ref: str) -> bool:
    return ref.endswith(("current_stream()", "default_stream()"))


@dataclass
class _Scope:
    """What a function body has bound so far, consulted when reading its calls."""

    aliases: dict[str, str] = field(default_factory=dict)
    memory: dict[str, Memory] = field(default_factory=dict)
    contexts: dict[str, str] = field(default_factory=dict)  # name -> stream of a stream context
    orders: dict[str, SourceOrder] = field(default_factory=dict)  # copy-attribute objects
    events: set[str] = field(default_factory=set)  # names bound to CUDA events
    defaults: dict[str, cst.BaseExpression] = field(default_factory=dict)


@dataclass
class _ClassInfo:
    aliases: dict[str, str] = field(default_factory=dict)
    memory: dict[str, Memory] = field(default_factory=dict)
    events: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Segment:
    """A parsed piece of a file: a whole module, or top-level statements starting at ``first_line``."""

    module: cst.Module
    first_line: int = 1


MODULE_CODE = "<module>"
# Alias chains longer than this are cut (``x = x.next`` in a loop would never end).
_MAX_ALIAS_STEPS = 16


class ModuleReader:
    """Reads a file's parsed segments into function summaries (module-level code included,
    as the pseudo-function ``<module>``)."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        self._segments = segments
        self._positions: Mapping[cst.CSTNode, CodeRange] = {}
        self._line_offset = 0
        self._imports: dict[str, str] = {}
        self._constants: dict[str, cst.BaseExpression] = {}
        self._class: _ClassInfo = _ClassInfo()
        self._scope = _Scope()
        self._streams: list[str] = []
        self._statement_lines = (1, 1)
        self.functions: list[FunctionSummary] = []

    # ----------------------------------------------------------------- module level
    def read(self) -> list[FunctionSummary]:
        for segment in self._segments:
            self._collect_module_names(segment.module.body)
        module_scope = _Scope()
        module_code: list[Item] = []
        first_span: Span | None = None
        for segment in self._segments:
            self._positions = MetadataWrapper(segment.module, unsafe_skip_copy=True).resolve(PositionProvider)
            self._line_offset = segment.first_line - 1
            self._scope = module_scope
            for statement in segment.module.body:
                module_code.extend(self._read_statement(statement))
                if first_span is None:
                    first_span = self._span(statement)
            self._read_definitions(segment.module.body, prefix="")
        if module_code and first_span is not None:
            self.functions.append(FunctionSummary(MODULE_CODE, first_span, tuple(module_code)))
        return self.functions

    def _collect_module_names(self, body: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> None:
        for statement in body:
            for small in _small_statements(statement):
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        dotted = _dotted(alias.name)
                        local = _alias_name(alias) or dotted.split(".")[0]
                        self._imports[local] = dotted if alias.asname else local
                elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    base = "." * len(small.relative) + (_dotted(small.module) if small.module else "")
                    for alias in small.names:
                        name = _dotted(alias.name)
                        self._imports[_alias_name(alias) or name] = (
                            f"{base}.{name}".lstrip(".") if not small.relative else f"{base}.{name}"
                        )
                elif isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
                    targets = (
                        [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    )
                    for target in targets:
                        if isinstance(target, cst.Name):
                            self._constants[target.value] = small.value
            if isinstance(statement, cst.If):
                # Imports under ``if TYPE_CHECKING`` / try-except fallbacks still name things.
                self._collect_module_names(statement.body.body)
            elif isinstance(statement, cst.Try):
                self._collect_module_names(statement.body.body)

    def _read_definitions(self, body: Sequence[cst.BaseStatement], prefix: str) -> None:
        for statement in body:
            if isinstance(statement, cst.FunctionDef):
                self._read_function(statement, prefix)
            elif isinstance(statement, cst.ClassDef):
                saved = self._class
                self._class = self._class_info(statement)
                self._read_definitions(_block(statement.body), f"{prefix}{statement.name.value}.")
                self._class = saved
            elif isinstance(statement, (cst.If, cst.Try, cst.With)):
                self._read_definitions(_block(statement.body), prefix)

    def _class_info(self, node: cst.ClassDef) -> _ClassInfo:
        """``self.x = ...`` anywhere in the class: what each attribute is bound to."""
        info = _ClassInfo()
        saved_class, saved_scope = self._class, self._scope
        self._class, self._scope = info, _Scope()
        for method in _block(node.body):
            if not isinstance(method, cst.FunctionDef):
                continue
            for assign in _walk_assignments(method):
                for target in assign[0]:
                    ref = self._ref(target)
                    if ref.startswith("self."):
                        self._bind(ref, assign[1], into=info)
        self._class, self._scope = saved_class, saved_scope
        return info

    # ---------------------------------------------------------------- functions
    def _read_function(self, node: cst.FunctionDef, prefix: str) -> None:
        saved_scope, saved_streams = self._scope, self._streams
        self._scope, self._streams = _Scope(), []
        for param in [*node.params.params, *node.params.kwonly_params, *node.params.posonly_params]:
            if param.default is not None:
                self._scope.defaults[param.name.value] = param.default
        body = tuple(self._read_suite(node.body))
        self.functions.append(
            FunctionSummary(qualname=f"{prefix}{node.name.value}", span=self._span(node.name), body=body)
        )
        self._scope, self._streams = saved_scope, saved_streams
        # Nested functions are summarized on their own (they run when called, not here).
        self._read_definitions(_block(node.body), f"{prefix}{node.name.value}.")

    def _read_suite(self, suite: cst.BaseSuite) -> Iterator[Item]:
        if isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                yield from self._read_small(small)
        elif isinstance(suite, cst.IndentedBlock):
            for statement in suite.body:
                yield from self._read_statement(statement)

    def _read_statement(self, statement: cst.BaseStatement) -> Iterator[Item]:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                yield from self._read_small(small)
        elif isinstance(statement, cst.If):
            yield from self._read_expression(statement.test)
            arms = [tuple(self._read_suite(statement.body))]
            labels = [f"if branch at line {self._span(statement).line}"]
            orelse = statement.orelse
            if isinstance(orelse, cst.If):
                arms.append(tuple(self._read_statement(orelse)))
                labels.append(f"elif branch at line {self._span(orelse).line}")
            elif isinstance(orelse, cst.Else):
                arms.append(tuple(self._read_suite(orelse.body)))
                labels.append(f"else branch at line {self._span(orelse).line}")
            else:
                arms.append(())
                labels.append(f"path where the if at line {self._span(statement).line} is not taken")
            yield Branch(self._span(statement), tuple(arms), tuple(labels))
        elif isinstance(statement, (cst.For, cst.While)):
            head = statement.iter if isinstance(statement, cst.For) else statement.test
            yield from self._read_expression(head)
            body = tuple(self._read_suite(statement.body))
            yield Loop(self._span(statement), body)
            if statement.orelse is not None:
                yield from self._read_suite(statement.orelse.body)
        elif isinstance(statement, cst.With):
            yield from self._read_with(statement)
        elif isinstance(statement, cst.Try):
            yield from self._read_suite(statement.body)
            if statement.handlers:
                arms = [()] + [tuple(self._read_suite(h.body)) for h in statement.handlers]
                labels = ["path without an exception"] + [
                    f"except branch at line {self._span(h).line}" for h in statement.handlers
                ]
                yield Branch(self._span(statement), tuple(arms), tuple(labels))
            if statement.orelse is not None:
                yield from self._read_suite(statement.orelse.body)
            if statement.finalbody is not None:
                yield from self._read_suite(statement.finalbody.body)
        elif isinstance(statement, cst.Match):
            cases = tuple(tuple(self._read_suite(case.body)) for case in statement.cases)
            case_labels = tuple(f"case at line {self._span(case).line}" for case in statement.cases)
            yield Branch(self._span(statement), cases, case_labels)

    def _read_with(self, statement: cst.With) -> Iterator[Item]:
        pushed = 0
        for item in statement.items:
            stream = self._stream_context(item.item)
            if stream is None:
                yield from self._read_expression(item.item)
            else:
                self._streams.append(stream)
                pushed += 1
            if item.asname is not None and isinstance(item.asname.name, cst.Name) and stream:
                self._scope.contexts[item.asname.name.value] = stream
        yield from self._read_suite(statement.body)
        del self._streams[len(self._streams) - pushed :]

    def _read_small(self, small: cst.BaseSmallStatement) -> Iterator[Item]:
        self._statement_lines = self._lines(small)
        if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            if small.value is not None:
                yield from self._read_expression(small.value)
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for target in targets:
                yield from self._assign(target, small.value, small)
        elif isinstance(small, (cst.Expr, cst.Return)) and small.value is not None:
            yield from self._read_expression(small.value)

    def _assign(
        self, target: cst.BaseExpression, value: cst.BaseExpression | None, statement: cst.CSTNode
    ) -> Iterator[Item]:
        if isinstance(target, cst.Subscript) or isinstance(statement, cst.AugAssign):
            written = self._tensor_ref(target)
            if written and self._stream() == CURRENT_STREAM:
                yield Write(self._span(target), self._statement_lines, written)
            return
        if isinstance(target, cst.Attribute) and target.attr.value == "srcAccessOrder" and value is not None:
            order = self._order_value(value, origin="attribute")
            holder = self._ref(target.value)
            if order is not None and holder:
                self._scope.orders[holder] = order
            return
        ref = self._ref(target)
        if ref and value is not None:
            self._bind(ref, value, into=self._scope)
            if isinstance(value, cst.Call) and self._last(value.func) == "record_event":
                stream = (
                    self._stream_of(value.func.value)
                    if isinstance(value.func, cst.Attribute)
                    else self._stream()
                )
                yield RecordEvent(self._span(value), self._statement_lines, self._resolve(ref), stream)

    def _bind(self, ref: str, value: cst.BaseExpression, into: _Scope | _ClassInfo) -> None:
        """Remember what ``ref = value`` says about ref: an alias, a memory kind, an order."""
        value_ref = self._ref(value)
        self_referential = value_ref == ref or value_ref.startswith(f"{ref}.")
        if (
            value_ref
            and not self_referential
            and (not isinstance(value, cst.Call) or _is_current_stream(value_ref))
        ):
            into.aliases[ref] = value_ref
        else:
            into.aliases.pop(ref, None)
        memory = self._memory(value)
        if memory is not Memory.UNKNOWN:
            into.memory[ref] = memory
        if isinstance(value, cst.Call) and self._last(value.func) in ("Event", "record_event"):
            into.events.add(ref)
        if isinstance(into, _Scope) and isinstance(value, cst.Call):
            if self._last(value.func) in _STREAM_CONTEXTS and value.args:
                into.contexts[ref] = self._stream_of(value.args[0].value)
            for arg in value.args:
                if arg.keyword is not None and arg.keyword.value in _ORDER_KEYWORDS:
                    order = self._order_value(arg.value, origin="attribute")
                    if order is not None:
                        into.orders[ref] = order

    # ------------------------------------------------------------- expressions
    def _read_expression(self, expression: cst.BaseExpression) -> Iterator[Item]:
        for call in _calls_in_evaluation_order(expression):
            yield from self._read_call(call)

    def _read_call(self, call: cst.Call) -> Iterator[Item]:
        name = self._last(call.func)
        func_ref = self._ref(call.func)
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        span = self._span(call)
        lines = self._statement_lines
        args = [a for a in call.args if a.keyword is None and a.star == ""]

        if name == "wait_stream" and receiver is not None and args:
            yield WaitStream(span, lines, self._stream_of(receiver), self._stream_of(args[0].value))
        elif name == "wait_event" and receiver is not None and args:
            yield WaitEvent(span, lines, self._stream_of(receiver), self._event_ref(args[0].value))
        elif name == "wait" and receiver is not None and self._is_cuda_event_wait(receiver, args):
            waiter = self._stream_of(args[0].value) if args else self._stream()
            yield WaitEvent(span, lines, waiter, self._event_ref(receiver))
        elif name == "record" and receiver is not None:
            stream = self._stream_of(args[0].value) if args else self._stream()
            yield RecordEvent(span, lines, self._event_ref(receiver), stream)
        elif name == "record_event" and receiver is not None:
            # Unassigned (``s.wait_event(p.record_event())``): name the event by its spelling.
            yield RecordEvent(span, lines, self._event_ref(call), self._stream_of(receiver))
        elif name == "synchronize":
            if func_ref in _DEVICE_SYNC_CALLS or receiver is None:
                yield HostSync(span, lines, "device")
            else:
                yield HostSync(span, lines, self._stream_of(receiver))
        else:
            yield from self._read_copy(call, name, receiver, args)
            if (
                receiver is not None
                and name.endswith("_")
                and not name.startswith("_")
                and self._stream() == CURRENT_STREAM
            ):
                written = self._tensor_ref(receiver)
                if written:
                    yield Write(span, lines, written)

    def _read_copy(
        self,
        call: cst.Call,
        name: str,
        receiver: cst.BaseExpression | None,
        args: list[cst.Arg],
    ) -> Iterator[Item]:
        span, lines = self._span(call), self._statement_lines
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if name == "copy_" and receiver is not None and args:
            source = args[0].value
            yield Copy(
                span,
                lines,
                "Tensor.copy_",
                self._stream(),
                self._tensor_ref(source),
                self._memory(source),
                self._memory(receiver),
            )
        elif name == "cpu" and receiver is not None and not args:
            yield Copy(
                span,
                lines,
                "Tensor.cpu",
                self._stream(),
                self._tensor_ref(receiver),
                self._memory(receiver),
                Memory.HOST,
            )
        elif name == "to" and receiver is not None:
            target = args[0].value if args else keywords.get("device")
            if target is not None and self._device_memory(target) is Memory.HOST:
                yield Copy(
                    span,
                    lines,
                    "Tensor.to",
                    self._stream(),
                    self._tensor_ref(receiver),
                    self._memory(receiver),
                    Memory.HOST,
                )
        elif name in _BATCH_COPIES:
            stream_arg = keywords.get("hStream", keywords.get("stream"))
            if stream_arg is None and len(args) >= 8:
                stream_arg = args[-1].value
            stream = self._stream_of(stream_arg) if stream_arg is not None else self._stream()
            order = self._order_of_arguments(call)
            yield Copy(span, lines, name, stream, "", *_UNKNOWN_MEMORY, order)
        elif name in ("cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2"):
            stream = self._stream_of(args[3].value) if len(args) >= 4 else self._stream()
            read = self._tensor_ref(args[1].value) if len(args) > 1 else ""
            yield Copy(span, lines, name, stream, read, Memory.DEVICE, Memory.HOST)
        elif name in ("cuMemcpyAsync", "cuMemcpyAsync_v2"):
            stream = self._stream_of(args[3].value) if len(args) >= 4 else self._stream()
            yield Copy(span, lines, name, stream, "", *_UNKNOWN_MEMORY)
        elif name in ("cudaMemcpyAsync", "hipMemcpyAsync", "memcpyAsync"):
            kind = self._int_value(args[3].value) if len(args) >= 4 else None
            memory = _KIND_MEMORY.get(kind, _UNKNOWN_MEMORY) if kind is not None else _UNKNOWN_MEMORY
            stream = self._stream_of(args[4].value) if len(args) >= 5 else self._stream()
            yield Copy(span, lines, name, stream, "", *memory)
        elif name == "cuMemcpyWithAttributesAsync":
            stream = self._stream_of(args[4].value) if len(args) >= 5 else self._stream()
            yield Copy(span, lines, name, stream, "", *_UNKNOWN_MEMORY, self._order_of_arguments(call))
        elif name in ("swap_blocks", "swap_blocks_batch") and len(args) >= 2:
            memory = (self._memory(args[0].value), self._memory(args[1].value))
            order = None
            flag = keywords.get("is_src_access_order_any")
            if flag is not None and self._bool_value(flag) is True:
                order = SourceOrder(ORDER_ANY, _code(flag), self._span(flag), "is_src_access_order_any=True")
            yield Copy(span, lines, name, self._stream(), self._tensor_ref(args[0].value), *memory, order)
        elif name in ("get", "asnumpy") and self._is_stream_argument(keywords.get("stream")):
            stream = self._stream_of(keywords["stream"])
            yield Copy(span, lines, name, stream, "", Memory.DEVICE, Memory.HOST)

    # ------------------------------------------------------ source access order
    def _order_of_arguments(self, call: cst.Call) -> SourceOrder | None:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in _ORDER_KEYWORDS:
                return self._order_value(arg.value, origin="argument")
        for arg in call.args:
            for name in _names_in(arg.value):
                order = self._scope.orders.get(self._resolve(name))
                if order is not None:
                    return order
        return None

    def _order_value(self, expression: cst.BaseExpression, origin: str) -> SourceOrder | None:
        value, where, how = self._resolve_int(expression, origin, depth=0)
        if value is None or where is None:
            return None
        return SourceOrder(value, _code(where), self._span(where), how)

    def _resolve_int(
        self, expression: cst.BaseExpression, origin: str, depth: int
    ) -> tuple[int | None, cst.BaseExpression | None, str]:
        if depth > 8:
            return None, None, origin
        if isinstance(expression, cst.Integer):
            return int(expression.value, 0), expression, origin
        if isinstance(expression, cst.SimpleString):
            text = expression.evaluated_value
            if isinstance(text, str) and text.lower() in _ORDER_STRINGS:
                return _ORDER_STRINGS[text.lower()], expression, origin
            return None, None, origin
        if (
            isinstance(expression, cst.Call)
            and len(expression.args) == 1
            and self._last(expression.func) == "int"
        ):
            return self._resolve_int(expression.args[0].value, origin, depth + 1)
        if isinstance(expression, cst.Attribute) and expression.attr.value == "value":
            return self._resolve_int(expression.value, origin, depth + 1)
        if isinstance(expression, (cst.Name, cst.Attribute)):
            last = self._last(expression)
            if last in _ORDER_SPELLINGS:
                return _ORDER_SPELLINGS[last], expression, origin
            if isinstance(expression, cst.Name):
                name = expression.value
                if name in self._scope.defaults:
                    return self._resolve_int(
                        self._scope.defaults[name], f"default of parameter '{name}'", depth + 1
                    )
                if name in self._constants:
                    value, _, how = self._resolve_int(self._constants[name], origin, depth + 1)
                    return value, expression, how
        return None, None, origin

    def _int_value(self, expression: cst.BaseExpression) -> int | None:
        if isinstance(expression, (cst.Name, cst.Attribute)) and self._last(expression) in _KIND_SPELLINGS:
            return _KIND_SPELLINGS[self._last(expression)]
        return self._resolve_int(expression, "", 0)[0]

    def _bool_value(self, expression: cst.BaseExpression) -> bool | None:
        if isinstance(expression, cst.Name) and expression.value in ("True", "False"):
            return expression.value == "True"
        if isinstance(expression, cst.Name) and expression.value in self._scope.defaults:
            return self._bool_value(self._scope.defaults[expression.value])
        return None

    # ------------------------------------------------------- streams and events
    def _stream(self) -> str:
        return self._streams[-1] if self._streams else CURRENT_STREAM

    def _stream_context(self, expression: cst.BaseExpression) -> str | None:
        """The stream a ``with`` item makes current, if it is a stream context."""
        if isinstance(expression, cst.Call) and self._last(expression.func) in _STREAM_CONTEXTS:
            if expression.args:
                return self._stream_of(expression.args[0].value)
            return None
        ref = self._resolve(self._ref(expression))
        if ref in self._scope.contexts:
            return self._scope.contexts[ref]
        return None

    def _is_stream_argument(self, expression: cst.BaseExpression | None) -> bool:
        """``stream=`` names a CUDA stream, not a flag (``requests.get(url, stream=True)``)."""
        if expression is None or isinstance(expression, (cst.SimpleString, cst.Integer)):
            return False
        return not (isinstance(expression, cst.Name) and expression.value in ("True", "False", "None"))

    def _stream_of(self, expression: cst.BaseExpression) -> str:
        """Canonical name of the stream an expression denotes (handles and aliases included)."""
        if isinstance(expression, cst.Attribute) and expression.attr.value in (
            "cuda_stream",
            "handle",
            "ptr",
        ):
            return self._stream_of(expression.value)
        if isinstance(expression, cst.Call) and self._last(expression.func) == "int" and expression.args:
            return self._stream_of(expression.args[0].value)
        if isinstance(expression, cst.Integer) and expression.value == "0":
            return CURRENT_STREAM  # the legacy default stream synchronizes with blocking streams
        if isinstance(expression, cst.Name) and expression.value == "None":
            return CURRENT_STREAM
        ref = self._resolve(self._ref(expression))
        if not ref or _is_current_stream(ref):
            return CURRENT_STREAM if _is_current_stream(ref) else "<unnamed stream>"
        return ref

    def _event_ref(self, expression: cst.BaseExpression) -> str:
        return self._resolve(self._ref(expression)) or _code(expression)

    def _is_cuda_event_wait(self, receiver: cst.BaseExpression, args: list[cst.Arg]) -> bool:
        """``e.wait(s)`` is a CUDA event wait; bare ``e.wait()`` only when ``e`` is a CUDA event."""
        if args:
            return True
        ref = self._resolve(self._ref(receiver))
        return ref in self._scope.events or ref in self._class.events

    # ------------------------------------------------------------------ memory
    def _memory(self, expression: cst.BaseExpression | None) -> Memory:
        if expression is None:
            return Memory.UNKNOWN
        if isinstance(expression, cst.Subscript):
            return self._memory(expression.value)
        if isinstance(expression, (cst.Name, cst.Attribute)):
            ref = self._ref(expression)
            for source in (self._scope.memory, self._class.memory):
                if ref in source:
                    return source[ref]
            resolved = self._resolve(ref)
            if resolved != ref:
                for source in (self._scope.memory, self._class.memory):
                    if resolved in source:
                        return source[resolved]
            return Memory.UNKNOWN
        if not isinstance(expression, cst.Call):
            return Memory.UNKNOWN
        name = self._last(expression.func)
        receiver = expression.func.value if isinstance(expression.func, cst.Attribute) else None
        keywords = {a.keyword.value: a.value for a in expression.args if a.keyword is not None}
        if name in ("cuda",) and receiver is not None:
            return Memory.DEVICE
        if name in ("cpu", "pin_memory", "numpy") and receiver is not None:
            return Memory.HOST
        if name == "to" and receiver is not None:
            positional = [a.value for a in expression.args if a.keyword is None]
            target = positional[0] if positional else keywords.get("device")
            if target is None:
                return self._memory(receiver)
            device = self._device_memory(target)
            return device if device is not Memory.UNKNOWN else self._memory(receiver)
        if name in _VIEW_METHODS and receiver is not None:
            return self._memory(receiver)
        if name in _ALLOCATORS or name in _LIKE_ALLOCATORS:
            pinned = keywords.get("pin_memory")
            if pinned is not None and self._bool_value(pinned) is True:
                return Memory.HOST
            if "device" in keywords:
                return self._device_memory(keywords["device"])
            if name in _LIKE_ALLOCATORS and expression.args:
                return self._memory(expression.args[0].value)
            if self._ref(expression.func).startswith("torch."):
                return Memory.HOST  # torch allocators default to the CPU
        return Memory.UNKNOWN

    def _device_memory(self, expression: cst.BaseExpression) -> Memory:
        """Where a ``device=`` / ``.to(...)`` argument puts a tensor."""
        if isinstance(expression, cst.SimpleString):
            text = expression.evaluated_value
            if isinstance(text, str):
                if text == "cpu":
                    return Memory.HOST
                if text.split(":")[0] in ("cuda", "hip", "xpu"):
                    return Memory.DEVICE
            return Memory.UNKNOWN
        if isinstance(expression, cst.Call) and self._last(expression.func) == "device" and expression.args:
            return self._device_memory(expression.args[0].value)
        if isinstance(expression, cst.Call) and self._last(expression.func) == "current_device":
            return Memory.DEVICE
        return (
            self._memory(expression) if isinstance(expression, (cst.Name, cst.Attribute)) else Memory.UNKNOWN
        )

    # ---------------------------------------------------------------- references
    def _ref(self, expression: cst.BaseExpression) -> str:
        """Dotted spelling of a name, attribute chain or call, with imports resolved."""
        if isinstance(expression, cst.Name):
            return self._imports.get(expression.value, expression.value)
        if isinstance(expression, cst.Attribute):
            base = self._ref(expression.value)
            return f"{base}.{expression.attr.value}" if base else ""
        if isinstance(expression, cst.Call):
            base = self._ref(expression.func)
            return f"{base}()" if base else ""
        return ""

    def _resolve(self, ref: str) -> str:
        seen: set[str] = set()
        while ref not in seen and len(seen) < _MAX_ALIAS_STEPS:
            seen.add(ref)
            target = self._scope.aliases.get(ref) or self._class.aliases.get(ref)
            if target is None:
                # ``s.x`` where ``s`` aliases ``self.y``: resolve the head.
                head, _, tail = ref.partition(".")
                if tail and head in self._scope.aliases:
                    ref = f"{self._scope.aliases[head]}.{tail}"
                    continue
                break
            ref = target
        return CURRENT_STREAM if _is_current_stream(ref) else ref

    def _tensor_ref(self, expression: cst.BaseExpression) -> str:
        """The tensor an expression reads or writes: ``gpu[:n].view(-1)`` is ``gpu``."""
        while True:
            if isinstance(expression, cst.Subscript):
                expression = expression.value
            elif (
                isinstance(expression, cst.Call)
                and isinstance(expression.func, cst.Attribute)
                and expression.func.attr.value in _VIEW_METHODS
            ):
                expression = expression.func.value
            else:
                break
        ref = self._ref(expression)
        return self._resolve(ref) if ref and not ref.endswith("()") else ref

    def _last(self, expression: cst.BaseExpression) -> str:
        if isinstance(expression, cst.Name):
            return self._imports.get(expression.value, expression.value).rsplit(".", 1)[-1]
        if isinstance(expression, cst.Attribute):
            return expression.attr.value
        return ""

    # ----------------------------------------------------------------- positions
    def _span(self, node: cst.CSTNode) -> Span:
        position = self._positions[node]
        offset = self._line_offset
        return Span(
            position.start.line + offset,
            position.start.column + 1,
            position.end.line + offset,
            position.end.column + 1,
        )

    def _lines(self, node: cst.CSTNode) -> tuple[int, int]:
        position = self._positions[node]
        return (position.start.line + self._line_offset, position.end.line + self._line_offset)


class _CallCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def leave_Call(self, original_node: cst.Call) -> None:
        self.calls.append(original_node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False  # a lambda body runs later, if ever


def _calls_in_evaluation_order(expression: cst.CSTNode) -> list[cst.Call]:
    collector = _CallCollector()
    expression.visit(collector)
    return collector.calls


def _names_in(expression: cst.BaseExpression) -> Iterator[str]:
    """Dotted names an argument mentions (``[attrs]``, ``byref(attrs)``, ``self.attrs``)."""
    if isinstance(expression, (cst.Name, cst.Attribute)):
        yield _code(expression)
    elif isinstance(expression, (cst.List, cst.Tuple)):
        for element in expression.elements:
            yield from _names_in(element.value)
    elif isinstance(expression, cst.Call):
        for arg in expression.args:
            yield from _names_in(arg.value)
    elif isinstance(expression, cst.BinaryOperation):
        yield from _names_in(expression.left)
        yield from _names_in(expression.right)


def _walk_assignments(node: cst.CSTNode) -> Iterator[tuple[list[cst.BaseExpression], cst.BaseExpression]]:
    collected: list[tuple[list[cst.BaseExpression], cst.BaseExpression]] = []

    class _Visitor(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            collected.append(([t.target for t in node.targets], node.value))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                collected.append(([node.target], node.value))

    node.visit(_Visitor())
    yield from collected


def _small_statements(statement: cst.CSTNode) -> Iterator[cst.BaseSmallStatement]:
    if isinstance(statement, cst.SimpleStatementLine):
        yield from statement.body


def _block(body: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    """Compound statements of a suite (a one-line suite has none)."""
    return body.body if isinstance(body, cst.IndentedBlock) else []


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _alias_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return ""


_EMPTY_MODULE = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)
