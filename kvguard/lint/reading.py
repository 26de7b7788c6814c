"""Pure readings of lowered code and abstract values that the interpreter and its API handlers share:
spellings, places of memory, source orders, stream handles, what a statement names or calls."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from kvguard.lint import ir
from kvguard.lint.api import (
    COPY_APIS,
    DEVICE_MODULE_LOOKUP,
    EVENT_SYNCS,
    HOST_READ_ARGUMENT_METHODS,
    HOST_READ_FUNCTIONS,
    HOST_READ_METHODS,
    KIND_SPELLINGS,
    NUMPY_SCALARS,
    ORDER_KEYWORDS,
    ORDER_STRINGS,
    SAME_MEMORY_METHODS,
    SEED_NAMES,
    STREAM_SYNCS,
    STREAM_WAITS,
    WEAK_NAMES,
)
from kvguard.lint.facts import Memory, SourceOrder
from kvguard.lint.findings import Span
from kvguard.lint.pathstate import Branch, Frame
from kvguard.lint.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    ContextV,
    CopyApiV,
    EventV,
    ExternalV,
    FuncV,
    GeneratorContextV,
    LambdaV,
    ModuleV,
    ObjectV,
    QueueGetV,
    QueueV,
    RecordV,
    SeqV,
    StreamV,
    TensorV,
    UnionV,
    Unknown,
    Value,
    ZipV,
    join,
    memory_of,
    options,
    taint,
    view_of,
)

_NEW_STREAM = "a stream created here"
# What a collection is on the path where ``if xs:`` found it empty: this very object, so that
# a loop over it runs no turn there (an empty list the code builds may be filled elsewhere).
EMPTIED = SeqV(())


def calls_in(value: object) -> list[ir.Call]:
    """Every call in statements or expressions, in source order, nested blocks included,
    nested functions' bodies left out."""
    found: list[ir.Call] = []
    # Depth first with an explicit stack: the indexes walk every function of a project,
    # and a generator per node cost more than the rest of building them.
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        fields = _WALKED_FIELDS.get(kind)
        if fields is None:
            fields = _WALKED_FIELDS[kind] = _walked_fields(kind)
        if fields is _ITEMS:
            stack.extend(reversed(item))  # type: ignore[call-overload]
            continue
        if kind is ir.Call:
            found.append(item)  # type: ignore[arg-type]
        stack.extend(getattr(item, name) for name in fields)
    return found


# The fields of each type that the walk above enters, last first (so that they come off the
# stack in order): a dataclass's fields, except a nested function's or a Span's; none of any
# other value. ``_ITEMS`` marks a tuple or list, whose items are entered instead.
_WALKED_FIELDS: dict[type, tuple[str, ...]] = {}
_ITEMS = ("<items>",)


def _walked_fields(kind: type) -> tuple[str, ...]:
    """The entry of ``_WALKED_FIELDS`` for a type not seen yet."""
    if issubclass(kind, (tuple, list)):
        return _ITEMS
    if not dataclasses.is_dataclass(kind) or issubclass(kind, (ir.Function, Span)):
        return ()
    return tuple(reversed([field.name for field in dataclasses.fields(kind)]))


def _direct_calls(statements: Sequence[ir.Stmt]) -> tuple[set[str], set[str]]:
    """Names called plainly (``helper(...)``) and methods called on ``self``."""
    plain: set[str] = set()
    on_self: set[str] = set()
    for call in calls_in(tuple(statements)):
        func = call.func
        if isinstance(func, ir.Name):
            plain.add(func.id)
        elif isinstance(func, ir.Attr) and isinstance(func.base, ir.Name) and func.base.id == "self":
            on_self.add(func.name)
    return plain, on_self


# Methods of Python's built-in types: ``x.get(k)``, ``x.pop()``, ``x.join(parts)`` on a value
# the code does not place is far likelier one of these than a project method of that name.
BUILTIN_METHODS = frozenset(
    name
    for kind in (dict, list, set, frozenset, str, bytes, bytearray, tuple, int, float, complex)
    for name in dir(kind)
    if not name.startswith("_")
)


# How a call names what it calls: plainly (``helper()``), on the function's own object
# (``self.m()``, ``cls.m()``, ``super().m()``), or on another receiver, by its name where it is
# a plain name (``torch.cat``) and "." where it is not (``self.pool.get()``).
PLAIN_CALL, OWN_CALL, OTHER_CALL = "", "self", "."


def _names_used(
    statements: Sequence[ir.Stmt], calls: set[tuple[str, str]] | None = None
) -> tuple[set[str], set[str], set[str]]:
    """(names called, every name, attribute, keyword and string mentioned, names passed as
    call arguments) in statements; ``calls`` gets each call's (receiver, name), the receiver
    as ``PLAIN_CALL``, ``OWN_CALL``, a name or ``OTHER_CALL``."""
    called: set[str] = set()
    mentioned: set[str] = set()
    passed: set[str] = set()

    def expr(e: ir.Expr | None) -> None:
        if e is None:
            return
        if isinstance(e, ir.Name):
            mentioned.add(e.id)
        elif isinstance(e, ir.Attr):
            mentioned.add(e.name)
            expr(e.base)
        elif isinstance(e, ir.Call):
            if isinstance(e.func, (ir.Name, ir.Attr)):
                called.add(e.func.id if isinstance(e.func, ir.Name) else e.func.name)
                if calls is not None:
                    calls.add(_call_receiver(e.func))
            if _is_name(e.func, "getattr") and e.args and _is_name(e.args[0], "torch"):
                mentioned.add(DEVICE_MODULE_LOOKUP)  # ``getattr(torch, device.type)``
            if isinstance(e.func, ir.Attr) and _in_place(e.func.name):
                mentioned.add(_TENSOR_WRITE)
            if isinstance(e.func, ir.Index):
                mentioned.add(_TENSOR_WRITE)  # a kernel launch, ``kernel[grid, block, stream](buf)``
            expr(e.func)
            for a in (*e.args, *(value for _, value in e.kwargs)):
                if isinstance(a, (ir.Name, ir.Attr)):
                    passed.add(a.id if isinstance(a, ir.Name) else a.name)
            for a in e.args:
                expr(a)
            for key, a in e.kwargs:
                mentioned.add(key)
                if key == "out":
                    mentioned.add(_TENSOR_WRITE)  # ``torch.index_select(x, 1, i, out=buf)`` writes buf
                if key == "target" and isinstance(a, (ir.Name, ir.Attr)):
                    called.add(a.id if isinstance(a, ir.Name) else a.name)
                expr(a)
        elif isinstance(e, ir.Const) and isinstance(e.value, (str, bytes)):
            text = e.value.decode("latin-1") if isinstance(e.value, bytes) else e.value
            if text in COPY_APIS:  # ``cuGetProcAddress(b"cuMemcpyBatchAsync")``, ``getattr(lib, ...)``
                mentioned.add(text)
        elif isinstance(e, ir.Seq):
            for item in e.items:
                expr(item)
        elif isinstance(e, ir.Index):
            expr(e.base)
            expr(e.index)
        elif isinstance(e, ir.Cond):
            expr(e.then)
            expr(e.test)
            expr(e.orelse)
        elif isinstance(e, (ir.Not, ir.IsNone)):
            expr(e.operand)
        elif isinstance(e, ir.Equals):
            expr(e.left)
            expr(e.right)
        elif isinstance(e, ir.Comp):
            expr(e.element)
            expr(e.target)
            expr(e.iterable)
            if e.key is not None:
                expr(e.key)
        elif isinstance(e, ir.Opaque):
            for part in e.parts:
                expr(part)
        elif isinstance(e, ir.Or):
            expr(e.left)
            expr(e.right)
        elif isinstance(e, ir.Operator):
            for operand in e.operands:
                expr(operand)
        elif isinstance(e, ir.Starred):
            expr(e.value)
        elif isinstance(e, ir.Lambda):
            expr(e.body)

    for statement in _nested(statements):
        if isinstance(statement, (ir.Assign, ir.AugAssign)):
            targets = statement.targets if isinstance(statement, ir.Assign) else (statement.target,)
            for target in targets:
                expr(target)
                if isinstance(target, ir.Index) and isinstance(target.index, (ir.Opaque, ir.Seq)):
                    mentioned.add(_TENSOR_WRITE)  # ``buf[a:b] = x``, ``buf[i, :] += x``
            expr(statement.value)
        elif isinstance(statement, (ir.Eval, ir.Return, ir.Raise, ir.Yield)):
            expr(statement.value)
        elif isinstance(statement, ir.If):
            expr(statement.test)
        elif isinstance(statement, ir.Loop):
            expr(statement.target)
            expr(statement.iter)
        elif isinstance(statement, ir.With):
            for item, name in statement.items:
                expr(item)
                expr(name)
    return called, mentioned, passed


def _call_receiver(func: ir.Name | ir.Attr) -> tuple[str, str]:
    if isinstance(func, ir.Name):
        return PLAIN_CALL, func.id
    base = func.base
    if (isinstance(base, ir.Name) and base.id in ("self", "cls")) or (
        isinstance(base, ir.Call) and _is_name(base.func, "super")
    ):
        return OWN_CALL, func.name
    return (base.id if isinstance(base, ir.Name) else OTHER_CALL), func.name


# Names of the host reading a tensor's memory: a function that names one may read a buffer an
# unfinished copy writes.
_HOST_READS = HOST_READ_METHODS | {"numpy"}
# Names of host reads of a whole buffer (not ``int``/``float``, which most code calls).
_WHOLE_BUFFER_READS = (
    _HOST_READS | HOST_READ_ARGUMENT_METHODS | (HOST_READ_FUNCTIONS - {"int", "float", "bool", "equal"})
)


# Mentioned by a function that writes into a tensor (a slice assignment, an in-place method):
# its callers reach a producer's write.
_TENSOR_WRITE = "<tensor write>"


def _opens_paths(value: Value, depth: int = 0) -> bool:
    """Whether code that read a field without this value may reach a copy or a hand-off with
    it: a call resolves through it into project code, a copy entry point or a queue, or a
    branch turns on it. Tensors, streams, events and counts change what a reached copy
    reports, not whether it is reached."""
    if isinstance(
        value, (ObjectV, FuncV, ClassV, LambdaV, QueueV, QueueGetV, ModuleV, CopyApiV, GeneratorContextV)
    ):
        return True
    if isinstance(value, ConstV):
        return isinstance(value.value, bool)
    if isinstance(value, ExternalV):
        last = value.dotted.removesuffix("()").rpartition(".")[2]
        return last in SEED_NAMES or last in WEAK_NAMES
    if depth > 3:
        return True
    if isinstance(value, (SeqV, ZipV)):
        return any(
            _opens_paths(item, depth + 1)
            for item in (value.items if isinstance(value, SeqV) else value.parts)
        )
    if isinstance(value, RecordV):
        return any(_opens_paths(item, depth + 1) for _, item in value.fields)
    if isinstance(value, UnionV):
        return any(_opens_paths(option, depth + 1) for option in value.options)
    return False


def _in_place(method: str) -> bool:
    """``fill_``, ``index_copy_``, ``add_``: torch's in-place methods end in one underscore."""
    return method.endswith("_") and not method.endswith("__") and len(method) > 1


def _fields_assigned(
    statements: Sequence[ir.Stmt], holder: str, items: bool = False, augmented: bool = False
) -> set[str]:
    """Names of ``holder.NAME = ...`` (or ``+=``) targets anywhere in the statements, with
    ``items`` of ``holder.NAME[key] = ...`` too, with ``augmented`` only those of ``+=``."""
    found: set[str] = set()

    def target(expr: ir.Expr) -> None:
        if items and isinstance(expr, ir.Index):
            target(expr.base)
        if isinstance(expr, ir.Attr) and isinstance(expr.base, ir.Name) and expr.base.id == holder:
            found.add(expr.name)
        elif isinstance(expr, ir.Seq):
            for item in expr.items:
                target(item)

    for statement in _nested(statements):
        if isinstance(statement, ir.Assign) and not augmented:
            for item in statement.targets:
                target(item)
        elif isinstance(statement, ir.AugAssign):
            target(statement.target)
    return found


def _fields_given(statements: Sequence[ir.Stmt]) -> set[str]:
    """Names of fields the statements give a value, on any object: ``x.NAME = ...`` targets
    and keywords of calls (``Meta(NAME=...)``)."""
    found = {keyword for call in calls_in(tuple(statements)) for keyword, _ in call.kwargs}

    def target(expr: ir.Expr) -> None:
        if isinstance(expr, ir.Attr):
            found.add(expr.name)
        elif isinstance(expr, ir.Seq):
            for item in expr.items:
                target(item)

    for statement in _nested(statements):
        if isinstance(statement, ir.Assign):
            for item in statement.targets:
                target(item)
    return found


def _forget_fields(env: dict[str, Value], target: ir.Expr) -> None:
    """Another object is bound to the names in ``target``: what was assigned to the fields of
    the one before (``item.data = ...``) is not this one's."""
    if isinstance(target, ir.Seq):
        for item in target.items:
            _forget_fields(env, item)
    elif isinstance(target, ir.Name):
        prefix = f"{target.id}."
        for stale in [name for name in env if name.startswith(prefix)]:
            del env[stale]


def _hands_out_a_field(function: ir.Function) -> bool:
    """A method that returns what its object holds (``return self.buffers[self.free.pop()]``,
    or a list it fills with views of a field): a pool handing out a pinned buffer is where the
    buffer a copy writes comes from."""
    if not function.class_name or not function.params:
        return False
    holder = function.params[0].name
    # Locals holding (a part of) a field: ``raw = self.buffer[start:end]``.
    from_fields: set[str] = set()
    for statement in _nested(function.body):
        if isinstance(statement, ir.Return) and statement.value is not None:
            value = _viewed(statement.value)
            if isinstance(value, ir.Attr) and isinstance(value.base, ir.Name) and value.base.id == holder:
                return True
            # Wrapped on the way out: ``return MemoryObj(raw, meta)`` over a slice of a field.
            if _names_in(statement.value) & from_fields:
                return True
        elif isinstance(statement, ir.Assign) and len(statement.targets) == 1:
            target, whole = statement.targets[0], statement.value
            # ``ret, self.val = self.val, None``: each target with its value.
            pairs = (
                zip(target.items, whole.items, strict=True)
                if isinstance(target, ir.Seq)
                and isinstance(whole, ir.Seq)
                and len(target.items) == len(whole.items)
                else [(target, whole)]
            )
            for name, given in pairs:
                # Addresses into a field (``self.bases[:, None] + ids * self.strides``) point
                # into the buffer it holds.
                parts = given.operands if isinstance(given, ir.Operator) and given.symbol == "+" else (given,)
                for value in [_viewed(part) for part in parts]:
                    if (
                        isinstance(name, ir.Name)
                        and isinstance(value, ir.Attr)
                        and isinstance(value.base, ir.Name)
                        and value.base.id == holder
                    ):
                        from_fields.add(name.id)
        elif (
            isinstance(statement, ir.Eval)
            and isinstance(call := statement.value, ir.Call)
            and isinstance(call.func, ir.Attr)
            and call.func.name in ("append", "extend", "insert")
            and isinstance(call.func.base, ir.Name)
            and call.args
        ):
            # ``views.append(self.buffer.narrow(0, offset, size))``
            value = _viewed(call.args[-1])
            if isinstance(value, ir.Attr) and isinstance(value.base, ir.Name) and value.base.id == holder:
                from_fields.add(call.func.base.id)
    return False


# Container methods that hand out one of the elements.
_ELEMENT_METHODS = frozenset({"pop", "popleft", "get", "popitem"})


def _viewed(expr: ir.Expr) -> ir.Expr:
    """What an element, slice or view is of (``self.buffer.narrow(0, 0, n)``: ``self.buffer``;
    ``self.free.pop()``: ``self.free``)."""
    while True:
        if isinstance(expr, ir.Index):
            expr = expr.base
        elif (
            isinstance(expr, ir.Call)
            and isinstance(expr.func, ir.Attr)
            and (expr.func.name in SAME_MEMORY_METHODS or expr.func.name in _ELEMENT_METHODS)
        ):
            expr = expr.func.base
        else:
            return expr


def _names_in(expr: object) -> set[str]:
    """The plain names an expression reads, at any depth."""
    if isinstance(expr, ir.Name):
        return {expr.id}
    found: set[str] = set()
    if isinstance(expr, ir.Lambda) or not dataclasses.is_dataclass(expr):
        return found
    for field in dataclasses.fields(expr):
        part = getattr(expr, field.name)
        for item in part if isinstance(part, tuple) else (part,):
            found |= _names_in(item[-1] if isinstance(item, tuple) else item)  # a keyword: (name, value)
    return found


def _globals_made(function: ir.Function) -> set[str]:
    """The module globals a function binds to what a call makes (``global _copy_fn;
    _copy_fn = _resolve()``): a lazily made handle, stream or entry point."""
    if not function.global_names:
        return set()
    return {
        target.id
        for statement in _nested(function.body)
        if isinstance(statement, ir.Assign) and isinstance(statement.value, ir.Call)
        for target in statement.targets
        if isinstance(target, ir.Name) and target.id in function.global_names
    }


def _nested(statements: Sequence[ir.Stmt]) -> Iterable[ir.Stmt]:
    """Every statement, and every statement in the blocks of each, in order."""
    for statement in statements:
        yield statement
        if isinstance(statement, (ir.If, ir.Loop)):
            yield from _nested(statement.body)
            yield from _nested(statement.orelse)
        elif isinstance(statement, ir.With):
            yield from _nested(statement.body)
        elif isinstance(statement, ir.Try):
            yield from _nested(statement.body)
            for handler in statement.handlers:
                yield from _nested(handler)
            yield from _nested(statement.orelse)
            yield from _nested(statement.final)


# Where a hand-off to a worker thread takes its job, by method; its arguments follow.
EXECUTOR_JOB_AT = {"submit": 0, "to_thread": 0, "run_in_executor": 1}


def _executor_job(
    method: str, receiver: Value | None, args: list[Value]
) -> tuple[Value, tuple[Value, ...]] | None:
    """The job and its arguments of a hand-off to a worker thread, if the call is one."""
    if isinstance(receiver, (ObjectV, ClassV)):
        return None  # the project's own ``submit``: followed as a call
    at = EXECUTOR_JOB_AT.get(method)
    if at is not None and len(args) > at and isinstance(args[at], (FuncV, LambdaV)):
        return args[at], tuple(args[at + 1 :])
    if method == "map" and len(args) >= 2 and isinstance(args[0], (FuncV, LambdaV)):
        return args[0], tuple(_element(a) for a in args[1:])
    if method in ("apply_async", "apply") and args and isinstance(args[0], (FuncV, LambdaV)):
        # ``multiprocessing.pool.ThreadPool.apply_async(fn, (a, b))``: its arguments in a tuple.
        given = args[1] if len(args) > 1 else SeqV(())
        return args[0], given.items if isinstance(given, SeqV) else (UNKNOWN,)
    return None


def _opaque_call(name: str, args: Sequence[Value], kwargs: dict[str, Value]) -> Value:
    """The result of calling something the analysis does not model."""
    if len(args) == 1 and not kwargs and isinstance(args[0], (CopyApiV, RecordV)):
        # A ctypes prototype wrapping an entry point; byref/addressof/pointer of a struct.
        return args[0]
    if any(key in ORDER_KEYWORDS for key in kwargs):
        return RecordV(name, tuple(kwargs.items()))  # copy attributes built by keyword
    return taint([*args, *kwargs.values()])


def _taught(name: str, names: tuple[str, ...]) -> bool:
    return any(name == taught or name.endswith(f".{taught}") for taught in names)


def _callee_name(callee: Value) -> str:
    if isinstance(callee, FuncV):
        return f"{callee.module}.{callee.qualname}"
    if isinstance(callee, ExternalV):
        return callee.dotted
    if isinstance(callee, Unknown):
        return callee.spelling
    return ""


def _the(thread: str) -> str:
    """A thread's name with its article: "the requesting thread", "the thread running f"."""
    return thread if thread.startswith("the ") else f"the {thread}"


def _is_property(function: ir.Function) -> bool:
    return any(
        _spelling(d).rsplit(".", 1)[-1] in ("property", "cached_property") for d in function.decorators
    )


def _declares_only(function: ir.Function) -> bool:
    """A method that only declares itself for subclasses to define (``@abstractmethod``, or a
    body of ``...``, ``pass``, a docstring or ``raise NotImplementedError``)."""
    if any(_spelling(d).rpartition(".")[2] == "abstractmethod" for d in function.decorators):
        return True
    return all(
        isinstance(statement, ir.Raise)
        or (isinstance(statement, ir.Eval) and isinstance(statement.value, ir.Const))
        for statement in function.body
    )


def _is_classmethod(function: ir.Function) -> bool:
    return any(_spelling(d) == "classmethod" for d in function.decorators)


def _is_static(function: ir.Function) -> bool:
    return any(_spelling(d) in ("staticmethod",) for d in function.decorators)


def _spelling(expr: ir.Expr) -> str:
    if isinstance(expr, ir.Name):
        return expr.id
    if isinstance(expr, ir.Attr):
        base = _spelling(expr.base)
        return f"{base}.{expr.name}" if base else expr.name
    if isinstance(expr, ir.Call):
        return f"{_spelling(expr.func)}()"
    return ""


def _has_none_branch(expr: ir.Expr) -> bool:
    return isinstance(expr, ir.Cond) and any(
        isinstance(branch, ir.Const) and branch.value is None for branch in (expr.then, expr.orelse)
    )


def _device_api(context: ir.Expr, imports: dict[str, str]) -> tuple[str, str]:
    """The device module a stream context is entered through (``torch.xpu`` of
    ``torch.xpu.stream(s)``, ``get_accelerator()``), when it can be spelt again without
    running code that takes arguments, and the module a barrier spelling it needs imported
    (``torch`` for ``on_stream(s)`` imported from ``torch.cuda``); "" otherwise."""
    if not isinstance(context, ir.Call):
        return "", ""
    if isinstance(context.func, ir.Name):
        dotted = imports.get(context.func.id, "")
        module_dotted, _, _ = dotted.rpartition(".")
        if not module_dotted:
            return "", ""
        top, _, rest = module_dotted.partition(".")
        local = next((name for name, bound in imports.items() if bound == top), "")
        return f"{local or top}.{rest}" if rest else (local or top), "" if local else top
    if not isinstance(context.func, ir.Attr):
        return "", ""
    module = context.func.base
    part: ir.Expr = module
    while True:
        if isinstance(part, ir.Attr):
            part = part.base
        elif isinstance(part, ir.Call) and not part.args and not part.kwargs:
            part = part.func
        else:
            break
    return (_spelling(module), "") if isinstance(part, ir.Name) else ("", "")


def _keyed_spelling(expr: ir.Index) -> str:
    """``state[key]`` as a local name, when container and key are plain names or constants."""
    base = _spelling(expr.base) if isinstance(expr.base, (ir.Name, ir.Attr)) else ""
    index = expr.index
    if isinstance(index, ir.Const) and isinstance(index.value, (str, int)):
        key = repr(index.value)
    else:
        key = _spelling(index) if isinstance(index, (ir.Name, ir.Attr)) else ""
    return f"{base}[{key}]" if base and key else ""


def _root_expr(expr: ir.Expr) -> ir.Expr:
    """The buffer a slice, view or element names (``t`` of ``t[i].view(...)``)."""
    while isinstance(expr, ir.Index) or (
        isinstance(expr, ir.Call) and isinstance(expr.func, ir.Attr) and expr.func.name in SAME_MEMORY_METHODS
    ):
        expr = expr.base if isinstance(expr, ir.Index) else expr.func.base  # type: ignore[union-attr]
    return expr


def _root_spelling(expr: ir.Expr) -> str:
    root = _root_expr(expr)
    return _spelling(root) if isinstance(root, (ir.Name, ir.Attr)) else ""


def _may_be_true(flag: Value | None) -> bool:
    """Whether a flag argument (``non_blocking``) may be true; left out, it is False."""
    return flag is not None and _truth(flag) is not False


def _written(identity: str, expr: ir.Expr) -> tuple[str, str]:
    """A copy destination: its identity, and how messages name it (a slice by its buffer, an
    address by what it is made from)."""
    if (
        isinstance(expr, ir.Call)
        and len(expr.args) == 1
        and _spelling(expr.func).rsplit(".", 1)[-1] in _ADDRESS_PASS_THROUGH
    ):
        return _written(identity, expr.args[0])
    if isinstance(expr, ir.Index):
        base = _spelling(expr.base)
        return identity, f"{base}[...]" if base else ""
    return identity, _spelling(expr)


# Calls that hand back the address they are given (``int(ptr)``, ``c_void_p(ptr)``).
_ADDRESS_PASS_THROUGH = frozenset({"int", "c_void_p"}) | NUMPY_SCALARS


# Methods a read reaches its buffer through (a view, the numpy array over a host tensor).
_VIEWS_OF_A_READ = SAME_MEMORY_METHODS | {"numpy"}


def _read_spelling(expr: ir.Expr) -> str:
    """How a message names the buffer a read reads: ``self.cache[...]`` for
    ``self.cache[first].flatten()[:16]``, through indexing and views."""
    indexed = False
    while True:
        if isinstance(expr, ir.Index):
            expr, indexed = expr.base, True
        elif (
            isinstance(expr, ir.Call)
            and isinstance(expr.func, ir.Attr)
            and expr.func.name in _VIEWS_OF_A_READ
        ):
            expr = expr.func.base
        else:
            break
    spelt = _spelling(expr) if isinstance(expr, (ir.Name, ir.Attr)) else ""
    if (
        not spelt
        and isinstance(expr, ir.Call)
        and isinstance(expr.func, (ir.Name, ir.Attr))
        and _spelling(expr.func) not in ("dict", "list", "tuple", "set")  # a display of several
    ):
        spelt = f"{_spelling(expr.func)}()"  # what an accessor gives (``buf.used()``)
    return f"{spelt}[...]" if spelt and indexed else spelt


def _buffer_site(kind: str, frame: Frame, call: ir.Call | ir.Operator) -> str:
    """A buffer's identity: where it is made, and through which calls (a helper that makes
    buffers makes a different one for each caller)."""
    through = "".join(f"<{step.path}:{step.line}" for step in frame.flow)
    return f"{kind}@{_site(frame, call)}{through}"


def _site(frame: Frame, call: ir.Call | ir.Operator) -> str:
    """Where a call is: two streams or queues made on one line are two objects."""
    return f"{frame.module.path}:{call.span.line}:{call.span.column}"


def _made_site(frame: Frame, call: ir.Call) -> str:
    """Where a stream or an event is made. In a module-level function (a factory helper)
    each call of it makes its own: the compute stream and the copy stream may both come from
    one ``create_stream()``, two events from one ``new_event()``."""
    site = _site(frame, call)
    function = frame.stack[-1] if frame.stack else ""
    if function and "." not in function and frame.flow:
        caller = frame.flow[-1]
        site += f"@{caller.path}:{caller.line}:{caller.column}"
    return site


# Stands for the copies an object's method calls left unfinished where an entry point's reads
# of fields are noted: another method that runs later may start one.
_LEFT_PENDING = "<copies left unfinished>"


# The key prefix of writes to a buffer the analysis cannot place, by how its value is spelt.
_UNPLACED = "unplaced:"
# The queue standing for every queue handed to the project from outside.
UNPLACED_QUEUE = "queue from outside"


# The key prefix of the default stream taken while a project-made stream was current.
_DEFAULT_UNDER = "default-under:"
# The default stream of a thread on which ``set_stream`` made another stream current.
_DISPLACED_DEFAULT = "default-displaced:"


# How a stream the code does not spell by a name is described.
_UNRESOLVED = "an unresolved stream"


def _stream_options(value: Value) -> tuple[StreamV, ...]:
    """The streams a value is one of (``pool.pop() if pool else Stream()``), where each of its
    options is a stream; () otherwise."""
    if not isinstance(value, UnionV):
        return ()
    streams = tuple(option for option in value.options if isinstance(option, StreamV))
    return streams if len(streams) == len(value.options) else ()


def _opaque_stream(value: Value) -> StreamV | None:
    if isinstance(value, UnionV):
        # A stream on every path that can give one: an empty tuple or None is no stream to
        # copy on (what a ``(err, *values)`` unwrapper gives when the call failed).
        streams = [o for o in value.options if not (isinstance(o, SeqV) and not o.items)]
        streams = [o for o in streams if not (isinstance(o, ConstV) and o.value is None)]
        if any(isinstance(o, StreamV) for o in streams):
            # Nor is the empty handle a create call fills by reference (``cudaStream_t()``).
            streams = [o for o in streams if not (isinstance(o, ExternalV) and o.dotted.startswith(_CTYPES))]
        if len({o.key if isinstance(o, StreamV) else id(o) for o in streams}) == 1:
            # one stream, however it was named on each path
            value = streams[0]
        elif len({_pool_of(o) for o in streams}) == 1 and _pool_of(streams[0]):
            # One of the streams a comprehension made (``self._copy[next(order)]``): the first
            # stands for them, as waits and syncs through the same name reach each of them.
            value = min(streams, key=lambda o: o.key if isinstance(o, StreamV) else "")
    if isinstance(value, StreamV):
        return value
    if isinstance(value, ConstV) and value.value in (0, None):
        return None  # the legacy default stream, or the current one
    label = value.spelling if isinstance(value, Unknown) and value.spelling else _UNRESOLVED
    return StreamV(f"opaque:{label}", label)


_CTYPES = "ctypes."


def _pool_of(value: Value) -> str:
    """The creation site of a stream one of several a comprehension made (``site#1``,
    ``site[copy]``), or ""."""
    if not isinstance(value, StreamV) or value.current_of or value.key.startswith("opaque:"):
        return ""
    member = re.search(r"(?:#\d+|\[[^\]]*\])$", value.key)
    return value.key[: member.start()] if member else ""


def _stream_context(value: Value) -> StreamV | None:
    if isinstance(value, ContextV):
        return value.stream
    if isinstance(value, StreamV):
        return value
    return None


def _label_streams(value: SeqV | RecordV, spelled: str) -> Value:
    """New streams kept in a list or dict, named by their place in it."""

    def label(item: Value, place: str) -> Value:
        if isinstance(item, StreamV) and item.label == _NEW_STREAM:
            return replace(item, label=f"{spelled}[{place}]")
        return item

    if isinstance(value, SeqV):
        if len(value.items) == 1:  # one stream standing for every element
            return SeqV((label(value.items[0], "..."),))
        return SeqV(tuple(label(item, str(i)) for i, item in enumerate(value.items)))
    return RecordV(value.type_name, tuple((key, label(item, repr(key))) for key, item in value.fields))


def _accepts(method: ir.Function, call: ir.Call) -> bool:
    """Whether a method's signature can take a call's arguments (the receiver aside)."""
    if call.star_args:
        return True
    params = method.params[1:] if not _is_static(method) else method.params
    named = [param for param in params if not param.star]
    varargs = any(param.star == "*" for param in params)
    varkw = any(param.star == "**" for param in params)
    if len(call.args) > len(named) and not varargs:
        return False
    given = {key for key, _ in call.kwargs}
    if any(param.default is None and param.name not in given for param in named[len(call.args) :]):
        return False
    return varkw or given <= {param.name for param in named}


def _carries_handle(value: Value, depth: int = 0) -> bool:
    """Whether a value is or holds a stream, event or queue."""
    if isinstance(value, (StreamV, EventV, QueueV, ContextV)):
        return True
    if depth < 2 and isinstance(value, (SeqV, UnionV)):
        items = value.items if isinstance(value, SeqV) else value.options
        return any(_carries_handle(item, depth + 1) for item in items)
    return False


def _small_range(iterable: Value) -> int:
    """n for ``range(n)`` with a small constant n (a few streams made in a comprehension)."""
    if isinstance(iterable, SeqV) and iterable.items and all(isinstance(i, ConstV) for i in iterable.items):
        return len(iterable.items)
    return 0


def _out_parameter(arg: ir.Expr) -> ir.Expr | None:
    """What ``ctypes.byref(x)`` or ``ctypes.pointer(x)`` passes by reference: ``x``."""
    if not isinstance(arg, ir.Call) or not arg.args:
        return None
    return arg.args[0] if _spelling(arg.func).rsplit(".", 1)[-1] in ("byref", "pointer") else None


def _is_none(value: Value) -> bool | None:
    if isinstance(value, ConstV):
        return value.value is None
    if isinstance(value, (Unknown, UnionV)):
        return None
    if isinstance(value, ExternalV) and value.dotted.endswith("()"):
        return None  # what a library call returned (``cache.get(key)``) may be None
    return False


def _truth(value: Value) -> bool | None:
    if (
        isinstance(value, ConstV)
        and isinstance(value.value, (bool, int))
        and not isinstance(value.value, float)
    ):
        return bool(value.value)
    if isinstance(value, ConstV) and value.value is None:
        return False
    if isinstance(value, (StreamV, EventV)):
        return True  # a stream or event object (``if state.done_event:``)
    return None


def _element(value: Value) -> Value:
    if isinstance(value, ZipV):
        return SeqV(tuple(_element(part) for part in value.parts))
    if isinstance(value, SeqV):
        return join(list(value.items)) if value.items else UNKNOWN
    if isinstance(value, TensorV):
        return value
    if isinstance(value, Unknown) and value.spelling:
        return value  # an element of a container the code does not place stands for it, as above
    if isinstance(value, UnionV):  # one of several collections: an element of one of them
        return join([_element(option) for option in value.options])
    if isinstance(value, RecordV) and value.fields and value.type_name == "dict":
        return join([ConstV(key, repr(key), "", None) for key, _ in value.fields])  # its keys
    if isinstance(value, RecordV) and value.fields:
        return join([field for _, field in value.fields])  # a named tuple: its fields' values
    return UNKNOWN


def _element_root(expr: ir.Expr) -> str:
    """The name a field chain starts from (``lease`` for ``lease.done``)."""
    while isinstance(expr, ir.Attr):
        expr = expr.base
    return expr.id if isinstance(expr, ir.Name) else ""


def _waits_on_each(loop: ir.Loop) -> bool:
    """Whether the loop's body waits on each element (``for e in events: e.synchronize()``,
    through nested loops over the element's parts): over an empty collection it has nothing to
    wait for, whatever the collection is."""
    bound = _target_names(loop.target)
    if not bound:
        return False

    def waits(statements: Sequence[ir.Stmt]) -> bool:
        for statement in statements:
            if (
                isinstance(statement, ir.Loop)
                and isinstance(statement.iter, ir.Name)
                and statement.iter.id in bound
            ):
                bound.update(_target_names(statement.target))
                if waits(statement.body):
                    return True
            elif isinstance(statement, ir.Eval) and isinstance(statement.value, ir.Call):
                call = statement.value
                func = call.func
                if not isinstance(func, ir.Attr):
                    continue
                # The element or a field of it (``lease.done.wait(stream)``) waited on.
                if func.name in ("synchronize", "wait") and _element_root(func.base) in bound:
                    return True
                if func.name == "wait_event" and call.args and _element_root(call.args[0]) in bound:
                    return True
        return False

    return waits(loop.body)


def _target_names(target: ir.Expr | None) -> set[str]:
    if isinstance(target, ir.Name):
        return {target.id}
    if isinstance(target, ir.Seq):
        return {name for item in target.items for name in _target_names(item)}
    return set()


def _holds_something(value: Value) -> bool:
    """A sequence the code spells with items, whichever option it is."""
    return all(isinstance(option, SeqV) and option.items for option in options(value))


# What an ``if`` on a name or field told the paths after it (``if offloads or onboards:`` not
# taken: neither holds anything), kept among the names under this prefix.
TRUTH_PREFIX = "?"


def _merge_names(before: dict[str, Value], paths: Sequence[Branch]) -> dict[str, Value]:
    """Names where paths join: a name bound differently on two paths is either value
    (``if not available: device = "cpu"`` leaves the device unknown), except two different
    buffers, where the last path to bind it wins: host reads are matched by one identity."""
    live = [path.env for path in paths if not path.state.returned] or [paths[-1].env]
    merged = dict(live[0])
    for env in live[1:]:
        for name, value in env.items():
            held = merged.get(name)
            if held is None or held is value:
                merged[name] = value
            elif isinstance(held, TensorV) and isinstance(value, TensorV) and held.key != value.key:
                if value is not before.get(name):
                    merged[name] = value
            else:
                merged[name] = join([held, value])
    if len(live) > 1:
        # What an ``if`` told the paths holds after them only where every path was told it.
        for name in [n for n in merged if n.startswith(TRUTH_PREFIX)]:
            if any(env.get(name) != merged[name] for env in live):
                del merged[name]
    return merged


def _streams_differ(one: dict[str, Value], other: dict[str, Value]) -> bool:
    """Whether two paths bind some name to different streams or events."""
    return any(
        name in other and other[name] != value and (_orders_anything(value) or _orders_anything(other[name]))
        for name, value in one.items()
    )


def _orders_anything(value: Value) -> bool:
    return any(isinstance(option, (EventV, StreamV)) for option in options(value))


def _narrowed(test: ir.Expr, env: dict[str, Value]) -> tuple[str, Value, Value] | None:
    """For ``if name:`` over a name that may be an empty sequence or None: (name, its value,
    its value where the test holds)."""
    if not isinstance(test, ir.Name) or not isinstance(env.get(test.id), UnionV):
        return None
    value = env[test.id]
    assert isinstance(value, UnionV)
    kept = [
        option
        for option in value.options
        if not (isinstance(option, SeqV) and not option.items) and _is_none(option) is not True
    ]
    if not kept or len(kept) == len(value.options):
        return None
    return test.id, value, join(kept)


# Tests of where a tensor lives, and where it lives when they hold.
_PLACEMENT_FLAGS = {"is_cuda": Memory.DEVICE, "is_xpu": Memory.DEVICE, "is_cpu": Memory.HOST}
_DEVICE_TYPES = {"cuda": Memory.DEVICE, "xpu": Memory.DEVICE, "npu": Memory.DEVICE, "cpu": Memory.HOST}


def _placement_tested(test: ir.Expr) -> tuple[ir.Expr, Memory, bool] | None:
    """For a test of where a tensor lives (``t.is_cuda``, ``t.device.type == "cpu"``,
    ``t.is_pinned()``): the tensor's expression, where it lives when the test holds, and
    whether the test is negated (``not t.is_cuda``, ``!=``)."""
    negated = isinstance(test, ir.Not)
    if isinstance(test, ir.Not):
        test = test.operand
    if isinstance(test, ir.Attr) and test.name in _PLACEMENT_FLAGS:
        return test.base, _PLACEMENT_FLAGS[test.name], negated
    if (
        isinstance(test, ir.Call)
        and isinstance(test.func, ir.Attr)
        and test.func.name == "is_pinned"
        and not test.args
    ):
        return test.func.base, Memory.HOST, negated
    if isinstance(test, ir.Equals):
        for side, other in ((test.left, test.right), (test.right, test.left)):
            if (
                isinstance(side, ir.Attr)
                and side.name == "type"
                and isinstance(side.base, ir.Attr)
                and side.base.name == "device"
                and isinstance(other, ir.Const)
                and isinstance(other.value, str)
                and other.value in _DEVICE_TYPES
            ):
                return side.base.base, _DEVICE_TYPES[other.value], negated != test.negated
    return None


def _orders_something(value: Value) -> bool:
    """An event or stream, whichever option it is."""
    return all(isinstance(option, (EventV, StreamV)) for option in options(value))


def _unpack_starred(value: Value, targets: tuple[ir.Expr, ...]) -> list[Value]:
    """``err, *rest = result``: the starred target takes the middle of a spelt sequence."""
    star = next((i for i, t in enumerate(targets) if isinstance(t, ir.Starred)), None)
    if star is None:
        return _unpack(value, len(targets))
    after = len(targets) - star - 1
    if not isinstance(value, SeqV) or len(value.items) < len(targets) - 1:
        return [UNKNOWN] * len(targets)
    end = len(value.items) - after
    return [*value.items[:star], SeqV(value.items[star:end]), *value.items[end:]]


def _unpack(value: Value, count: int) -> list[Value]:
    if isinstance(value, UnionV):
        columns = [_unpack(option, count) for option in value.options]
        return [join([column[i] for column in columns]) for i in range(count)]
    if isinstance(value, SeqV) and len(value.items) == count:
        return list(value.items)
    if isinstance(value, RecordV) and len(value.fields) == count:
        return [v for _, v in value.fields]
    if isinstance(value, TensorV):
        return [value] * count
    return [UNKNOWN] * count


def dict_key(value: object) -> str:
    """A dict entry's name in a record: a string key as it is, another constant tagged."""
    return value if isinstance(value, str) else f"#{value!r}"


def spelt_key(value: Value) -> str | None:
    """A dict key the code spells as constants (``"load"``, ``3``, ``Kind.LOAD``, ``(GPU, CPU)``),
    as a record's field name; None for a key computed from what is not known."""
    if isinstance(value, ConstV) and value.value is not None:
        return dict_key(value.value)
    if isinstance(value, SeqV) and value.items:
        parts = [spelt_key(item) for item in value.items]
        if all(part is not None for part in parts):
            return f"#({', '.join(str(part) for part in parts)})"
    return None


def _index(base: Value, index: Value) -> Value:
    if isinstance(base, UnionV):
        # A container held in a field: its empty display and what was stored in it since. A
        # field that is None on some path cannot be subscripted there: those paths raise.
        options = [
            option
            for option in base.options
            if not (isinstance(option, SeqV) and not option.items)
            and not (isinstance(option, ConstV) and option.value is None)
        ]
        return join([_index(option, index) for option in options]) if options else UNKNOWN
    if isinstance(base, (StreamV, EventV, ObjectV, QueueV, FuncV)):
        return base  # a container known only by what it holds (``events[key]``)
    if isinstance(base, SeqV) and isinstance(index, ConstV) and isinstance(index.value, int):
        if -len(base.items) <= index.value < len(base.items):
            return base.items[index.value]
        return UNKNOWN
    if isinstance(base, SeqV) and base.items:
        # Some element (a stream, an event, an object, a buffer), or a slice of them: what
        # ``ret[1:]`` gives of cuda-python's ``(err, handle)`` is still that handle (a
        # computed index picks a handle, not the status code beside it).
        items: list[Value] = list(base.items)
        handles: list[Value] = [i for i in items if isinstance(i, (StreamV, EventV, TensorV))]
        return join(handles or items)
    if isinstance(base, RecordV) and (key := spelt_key(index)) is not None:
        return base.get(key) or UNKNOWN
    if isinstance(base, RecordV) and base.fields:
        # Under a key the code computes (``for k in streams: streams[k]``): one of the entries.
        spelt = index.options if isinstance(index, UnionV) else (index,)
        keys = [o.value for o in spelt if isinstance(o, ConstV) and isinstance(o.value, str)]
        # A key that may be one the code does not spell (a configured name) may be any entry.
        unspelt = any(not isinstance(o, ConstV) for o in spelt)
        picked = [value for key, value in base.fields if key in keys] if keys and not unspelt else []
        return join(picked or [value for _, value in base.fields])
    return view_of(base)


def _kind(value: Value) -> int | None:
    if isinstance(value, ConstV):
        if isinstance(value.value, int):
            return value.value
        return KIND_SPELLINGS.get(value.spelling.rsplit(".", 1)[-1])
    if isinstance(value, Unknown):
        return KIND_SPELLINGS.get(value.spelling.rsplit(".", 1)[-1])
    if isinstance(value, ExternalV):
        return KIND_SPELLINGS.get(value.dotted.rsplit(".", 1)[-1])
    return None


def _device_memory(value: Value) -> Memory | None:
    if isinstance(value, ConstV) and isinstance(value.value, str):
        head = value.value.split(":")[0]
        if head == "cpu":
            return Memory.HOST
        if head in ("cuda", "hip", "xpu", "npu", "mps"):
            return Memory.DEVICE
    if isinstance(value, ConstV) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return Memory.DEVICE  # a device index
    if isinstance(value, TensorV) and not value.guessed:
        # ``t.device``: where t is (a tensor guessed from a field name places nothing).
        return value.memory
    return None


def _allocation_memory(
    args: tuple[Value, ...], kwargs: dict[str, Value], like: bool, from_data: bool = False
) -> Memory:
    if _truth(kwargs.get("pin_memory", UNKNOWN)) is True:
        return Memory.HOST
    if "device" in kwargs:
        return _device_memory(kwargs["device"]) or Memory.UNKNOWN
    if like:  # ``empty_like(t)``: where t is; a table of t's pointers points where t is
        data = args[0] if args else kwargs.get("data")
        placed = memory_of(data) if data is not None else None
        if placed is not None:
            return placed
        # ``torch.tensor([1, 2])`` from Python data is host memory; ``empty_like(t)`` of a t
        # the code does not place is where t is, which it does not show.
        return Memory.UNKNOWN if isinstance(data, TensorV) or not from_data else Memory.HOST
    return Memory.HOST  # torch allocates on the CPU by default


def _order_in(values: list[tuple[str, Value]]) -> SourceOrder | None:
    """A source access order among call arguments: a keyword, or a field of a record passed
    directly, through ``byref``/``addressof``, or in a list."""
    for key, value in values:
        if key in ORDER_KEYWORDS:
            order = _order_value(value, "passed as an argument")
            if order is not None:
                return order
        if key == "":
            found = _order_in_value(value, 0)
            if found is not None:
                return found
    return None


def _order_in_value(value: Value, depth: int) -> SourceOrder | None:
    if depth > 3:
        return None
    if isinstance(value, RecordV):
        for name in ORDER_KEYWORDS:
            field_value = value.get(name)
            if field_value is not None:
                return _order_value(field_value, "set in the copy attributes")
        for _, inner in value.fields:
            found = _order_in_value(inner, depth + 1)
            if found is not None:
                return found
    if isinstance(value, (SeqV, UnionV)):
        for item in value.items if isinstance(value, SeqV) else value.options:
            found = _order_in_value(item, depth + 1)
            if found is not None:
                return found
    return None


def _order_value(value: Value, origin: str) -> SourceOrder | None:
    if isinstance(value, UnionV):
        orders = [o for o in (_order_value(v, origin) for v in value.options) if o is not None]
        return max(orders, key=lambda o: o.value) if orders else None
    if not isinstance(value, ConstV) or value.span is None:
        return None
    number: int | None = None
    if isinstance(value.value, bool):
        number = None
    elif isinstance(value.value, int):
        number = value.value
    elif isinstance(value.value, str) and value.value.lower() in ORDER_STRINGS:
        number = ORDER_STRINGS[value.value.lower()]
    if number is None:
        return None
    return SourceOrder(
        number, value.spelling, value.span, value.origin or origin, value.path, value.defaulted_at
    )


def _local_name(expr: ir.Expr) -> str:
    """The key a name or a field of a named object (``xs``, ``batch.items``) has among a
    frame's names; "" for any other expression."""
    if isinstance(expr, ir.Name):
        return expr.id
    if isinstance(expr, ir.Attr) and isinstance(expr.base, ir.Name):
        return f"{expr.base.id}.{expr.name}"
    return ""


def _iterated_names(statements: Sequence[ir.Stmt]) -> set[str]:
    """Spellings of the names and fields (``xs``, ``batch.items``) that loops among the
    statements, at any depth, iterate over ("" among them for any other loop)."""
    found: set[str] = set()
    for statement in statements:
        if isinstance(statement, ir.Loop):
            found.add(_local_name(statement.iter))
            found |= _iterated_names(statement.body)
        elif isinstance(statement, ir.If):
            found |= _iterated_names(statement.body) | _iterated_names(statement.orelse)
        elif isinstance(statement, ir.Try):
            for block in (statement.body, *statement.handlers, statement.orelse, statement.final):
                found |= _iterated_names(block)
        elif isinstance(statement, ir.With):
            found |= _iterated_names(statement.body)
    return found


def _wait_if_set(statement: ir.If) -> tuple[str, str]:
    """What an ``if`` waits on where it exists, and whether the host or a stream waits
    ("host", "stream"): ``if done is not None: done.synchronize()``, ``if ready:
    stream.wait_event(ready)``. The path that skips the wait is one where, by the code's own
    account, nothing was recorded to wait for. ("", "") for any other ``if``."""
    test = statement.test
    if statement.has_else:
        return "", ""
    if isinstance(test, ir.IsNone) and test.negated:
        test = test.operand
    if not isinstance(test, (ir.Name, ir.Attr)):
        return "", ""
    waited = _spelling(test)
    for inner in statement.body:
        if not isinstance(inner, ir.Eval) or not isinstance(inner.value, ir.Call):
            continue
        call, called = inner.value, _spelling(inner.value.func).rsplit(".", 1)[-1]
        spelled = [_spelling(arg) for arg in call.args]
        receiver = _spelling(call.func.base) if isinstance(call.func, ir.Attr) else ""
        if (called == "synchronize" and receiver == waited) or (
            called in EVENT_SYNCS | STREAM_SYNCS and spelled[:1] == [waited]
        ):
            return waited, "host"
        if (
            (called in ("wait_event", "wait_stream") and spelled[:1] == [waited])
            or (called == "wait" and receiver == waited)
            or (called in STREAM_WAITS and waited in spelled[STREAM_WAITS[called][1] :][:1])
        ):
            return waited, "stream"
    return "", ""


def _comparison_tested(test: ir.Expr, comparisons: dict[str, ir.Equals]) -> ir.Equals | None:
    """The ``==`` / ``!=`` an ``if`` tests: spelled in the test, or bound to the name it tests
    (``on_side = current != side`` ... ``if on_side:`` / ``if not on_side:``)."""
    negated = isinstance(test, ir.Not)
    tested = test.operand if isinstance(test, ir.Not) else test
    if isinstance(tested, ir.Name) and tested.id in comparisons:
        tested = comparisons[tested.id]
    if not isinstance(tested, ir.Equals):
        return None
    return dataclasses.replace(tested, negated=tested.negated != negated)


def _flag_tested(test: ir.Expr, env: dict[str, Value]) -> str:
    """The name an ``if`` tests when it holds a flag the code computed but cannot decide (the
    value of ``a and not b``): "" for any other test, and for names that hold more than a truth
    value (a parameter, a buffer, a stream)."""
    if not isinstance(test, ir.Name):
        return ""
    held = env.get(test.id)
    return test.id if isinstance(held, Unknown) and not held.spelling else ""


def _is_name(expr: ir.Expr, name: str) -> bool:
    return isinstance(expr, ir.Name) and expr.id == name
