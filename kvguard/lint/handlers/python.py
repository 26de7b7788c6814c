"""Python built-ins and containers, read for the values they carry: ``dict.get``, ``append``,
``values()``, ``zip``, ``range``, ``functools.partial``, and scalar wrappers of an address or
handle (``int(x)``, ``ctypes.c_void_p(x)``, ``numpy.uint64(x)``)."""

from __future__ import annotations

from dataclasses import replace

from kvguard.lint import ir
from kvguard.lint.api import NUMPY_SCALARS, ORDER_TYPES, PYTHON_FACTS
from kvguard.lint.evaluator import _SPELT_RANGE, Evaluator, Handled
from kvguard.lint.pathstate import Frame, PathState
from kvguard.lint.reading import TRUTH_PREFIX, _element, _index, _spelling
from kvguard.lint.values import (
    SENTINEL,
    UNKNOWN,
    ConstV,
    CopyApiV,
    EventV,
    ExternalV,
    FuncV,
    LambdaV,
    ModuleV,
    ObjectV,
    RecordV,
    SeqV,
    StreamV,
    TensorV,
    UnionV,
    Unknown,
    Value,
    ZipV,
    host_elements,
    join,
    memory_of,
    options,
    taint,
    view_of,
)


class PythonApi(Evaluator):
    def _container_method(
        self,
        call: ir.Call,
        method: str,
        receiver: Value | None,
        callee: Value,
        args: list[Value],
        kwargs: dict[str, Value],
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """Reads and fills of lists, dicts and records."""
        if isinstance(callee, FuncV) or _module_or_function(receiver):
            # A project method of that name (``tree.insert(pages)``) runs; a library's function
            # (``np.add(acc, view)``) is no container's method.
            return None
        if method in ("pop", "popleft") and not args and isinstance(receiver, (SeqV, UnionV, TensorV)):
            return _element(receiver), state  # ``free.pop()``: one of the elements
        if (
            method in ("get", "pop", "setdefault")
            and args
            and "stream" not in kwargs
            and isinstance(receiver, (SeqV, UnionV, RecordV))
        ):
            # ``cache.get(key)``: what was stored there, as ``cache[key]`` would give it.
            stored = _index(receiver, args[0])
            return (join([stored, args[1]]) if method == "setdefault" and len(args) > 1 else stored), state
        if method in ("append", "appendleft", "extend", "add", "insert") and isinstance(call.func, ir.Attr):
            holder = call.func.base
            if isinstance(holder, (ir.Name, ir.Attr)):
                frame.env.pop(f"{TRUTH_PREFIX}{_spelling(holder)}", None)  # no longer known empty
            if isinstance(holder, ir.Name) and args and not isinstance(frame.env.get(holder.id), Unknown):
                current = frame.env.get(holder.id, UNKNOWN)
                added = args[-1]
                held = (ObjectV, RecordV, StreamV, EventV, SeqV, FuncV, LambdaV)
                if method != "extend" and all(isinstance(option, held) for option in options(added)):
                    # ``objs.append(obj)``, ``staged.append((host, name))``: a list holding it
                    added = SeqV((added,))
                elif method == "extend" and all(isinstance(option, SeqV) for option in options(added)):
                    pass  # ``objs.extend(allocated)``: a list of what that list holds, as it is
                elif not (method != "extend" and isinstance(added, TensorV)):
                    # Elements of what ``extend`` is given; an element that is no one buffer.
                    added = taint([added]) if memory_of(added) else current
                frame.env[holder.id] = join([current, added])  # ``buffers.append(buf)`` keeps buf
            elif (
                isinstance(holder, ir.Attr)
                and isinstance(holder.base, ir.Name)
                and isinstance(frame.env.get(holder.base.id), (RecordV, ObjectV))
                and args
                and isinstance(args[-1], (TensorV, RecordV, ObjectV, StreamV, EventV, FuncV, LambdaV))
                and method != "extend"
            ):
                # ``batch.buffers.append(buf)`` on a record made here, ``self.host.append(buf)``
                # on an object, ``self._hooks.append(hook)``: its list holds it too.
                current, _ = self._eval(holder, frame, state.copy())
                added = args[-1] if isinstance(args[-1], TensorV) else SeqV((args[-1],))
                if isinstance(current, (SeqV, UnionV)):
                    state = self._assign(holder, join([current, added]), frame, state, call)
            return UNKNOWN, state
        if method in ("values", "items") and not args and isinstance(receiver, SeqV):
            # A dict the code filled (``{n: Stream() for n in names}``): its values, keyed by
            # what the code does not spell.
            if method == "values":
                return receiver, state
            pairs = SeqV((SeqV((UNKNOWN, _element(receiver))),))
            return (pairs if receiver.items else join([SeqV(()), pairs])), state
        if method in ("values", "items") and not args and isinstance(receiver, (TensorV, UnionV)):
            # A dict of buffers (a container is read as what it holds): its values, or
            # (key, value) pairs.
            element = _index(receiver, UNKNOWN)
            return (SeqV((element,)) if method == "values" else SeqV((SeqV((UNKNOWN, element)),))), state
        if method in ("values", "keys", "items") and not args and isinstance(receiver, RecordV):
            keys = [ConstV(key, repr(key), frame.module.path, None) for key, _ in receiver.fields]
            values = [value for _, value in receiver.fields]
            if method == "items":
                return SeqV(tuple(SeqV(pair) for pair in zip(keys, values, strict=True))), state
            return SeqV(tuple(values if method == "values" else keys)), state
        return None

    def _builtin_function(
        self,
        dotted: str,
        last: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """Built-ins and wrappers that pass on what they are given."""
        if (
            dotted == "isinstance"
            and len(args) == 2
            and isinstance(args[0], SeqV)
            and isinstance(args[1], ExternalV)
            and args[1].dotted in ("tuple", "list")
        ):
            # ``result if isinstance(result, tuple) else (result,)`` over a binding's
            # ``(err, handle)``: the sequence the code made or was given is one.
            return ConstV(True, "isinstance", frame.module.path, None), state
        if dotted in ("ctypes.byref", "ctypes.pointer") and len(args) == 1:
            return args[0], state  # ``byref(attrs)``: the struct itself, fields and all
        if dotted in PYTHON_FACTS:
            return UNKNOWN, state  # ``len(ptrs)``: a fact about the argument, not its memory
        if dotted == "object" and not args and not kwargs:
            # ``_STOP = object()``: a sentinel, itself and nothing else (``job is _STOP``).
            site = f"{frame.module.path}:{call.span.line}:{call.span.column}"
            return ConstV(f"{SENTINEL}{site}", "object()", frame.module.path, call.span), state
        if last == "arange" and dotted.startswith("numpy"):
            # Index values (``base + np.arange(n) * stride``), not memory a copy reads or writes.
            return UNKNOWN, state
        if last in ("int", "float", "bool") and args and isinstance(args[0], TensorV) and not args[0].address:
            return UNKNOWN, state  # a number read out of a tensor: no longer its memory
        if dotted in ("os.environ.get", "os.getenv") and len(args) >= 2:
            # An environment variable's default, as a constant default is: the value the code
            # runs with unless configured (``int(os.environ.get("SRC_ORDER", "3"))``).
            return args[1], state
        if last == "int" and len(args) == 1 and any(_digits(option) for option in options(args[0])):
            # ``int("3")``: the number a spelt string holds (an environment variable's default,
            # ``int(os.environ.get("SRC_ORDER", "3"))``).
            return join([_as_int(option) for option in options(args[0])]), state
        if args and (
            last == "int"
            or last in ORDER_TYPES
            or (dotted.startswith("ctypes.c_") and "." not in dotted[7:])
            or (dotted.startswith("numpy.") and last in NUMPY_SCALARS)
        ):
            # ``int(x)``, a ctypes scalar made from x (``ctypes.c_void_p(s.cuda_stream)``) and
            # the driver's order type made from x carry x's meaning: the same stream handle,
            # pointer or order value.
            return args[0], state
        if (
            dotted == "getattr"
            and len(args) >= 2
            and isinstance(args[0], (ObjectV, RecordV))
            and call.args
            and (names := _spelt_names(args[1]))
        ):
            # ``getattr(self, stream_attr)`` with the name spelt (a decorator's argument): that
            # field; with one of a few names, any of those fields.
            base = call.args[0]
            held = [self._attribute(args[0], ir.Attr(base, name, call.span), frame) for name in names]
            return join(held), state
        if dotted == "getattr" and len(args) >= 2 and _names_torch(args[0]):
            # ``getattr(torch, device.type)`` is torch's module for that device, as
            # ``torch.get_device_module(device)`` gives it; a constant name is that module.
            name = args[1].value if isinstance(args[1], ConstV) else None
            return ExternalV(f"torch.{name}" if isinstance(name, str) else "torch.get_device_module()"), state
        if last == "zip":
            return ZipV(args), state
        if dotted == "enumerate" and args:
            # A few elements the code spells: a turn each, with its index (as a dict's items);
            # otherwise each element beside an index the code does not spell.
            items = args[0]
            if isinstance(items, SeqV) and 0 < len(items.items) <= _SPELT_RANGE:
                path = frame.module.path
                numbered = (SeqV((ConstV(i, str(i), path, None), item)) for i, item in enumerate(items.items))
                return SeqV(tuple(numbered)), state
            return ZipV((UNKNOWN, items)), state
        if dotted == "range" and len(args) == 1 and isinstance(args[0], ConstV):
            count = args[0].value
            if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= _SPELT_RANGE:
                path = frame.module.path
                return SeqV(tuple(ConstV(i, str(i), path, None) for i in range(count))), state
        if last == "dict" and not args:
            return RecordV("dict", tuple(kwargs.items())), state
        if last == "dict" and any(isinstance(arg, RecordV) for arg in args):
            # A copy of a dict the code spells (``cfg = dict(DEFAULTS)``, ``{**DEFAULTS,
            # **overrides}``), keyword entries over it; what the code does not spell adds none.
            fields: dict[str, Value] = {}
            for arg in args:
                fields.update(arg.fields if isinstance(arg, RecordV) else ())
            fields.update(kwargs)
            return RecordV("dict", tuple(fields.items())), state
        if dotted == "setattr" and len(args) == 3 and len(call.args) == 3 and isinstance(args[1], ConstV):
            name = args[1].value
            if isinstance(name, str):  # ``setattr(attrs, "srcAccessOrder", order)``
                return UNKNOWN, self._assign(ir.Attr(call.args[0], name), args[2], frame, state, call)
        if dotted == "vars" and len(args) == 1 and isinstance(args[0], RecordV):
            # A record's fields as a dict by name (``for k, v in vars(self).items()``).
            return RecordV("dict", args[0].fields), state
        if dotted == "memoryview" and args:
            return view_of(args[0]), state  # a view of the buffer: reading it is the read
        if last in ("list", "tuple") and args:
            if host_elements(args[0]) and call.args and _numpy_view(call.args[0]):
                # ``list(ids_host.numpy())`` walks the host array now: its elements are read here.
                # (A torch tensor's ``list(t)`` gives views of its rows, reading nothing.)
                self._host_read(args[0], call.args[0], f"`{last}()`", call, frame, state)
                return UNKNOWN, state
            return args[0], state
        if (dotted in ("list", "set") or dotted.endswith("collections.deque")) and not args:
            return SeqV(()), state  # an empty container the code fills
        if dotted in ("collections.OrderedDict", "collections.defaultdict") and not kwargs:
            return RecordV("dict", ()), state  # an empty dict the code fills
        if last == "partial" and args:
            if isinstance(args[0], FuncV):
                bound = (*args[0].keywords, *kwargs.items())
                return replace(args[0], partial=(*args[0].partial, *args[1:]), keywords=bound), state
            if isinstance(args[0], CopyApiV) and len(args) == 1:
                # ``partial(ops.swap_blocks_batch, is_src_access_order_any=True)``
                return replace(args[0], keywords=(*args[0].keywords, *kwargs.items())), state
            return args[0], state
        return None


def _spelt_names(value: Value) -> list[str]:
    """The attribute names a value spells, if every option is one (``"k"`` or ``"v"``)."""
    names = [o.value for o in options(value) if isinstance(o, ConstV) and isinstance(o.value, str)]
    return names if len(names) == len(options(value)) else []


def _names_torch(value: Value) -> bool:
    return (isinstance(value, ModuleV) and value.name == "torch") or (
        isinstance(value, ExternalV) and value.dotted == "torch"
    )


def _module_or_function(value: Value | None) -> bool:
    """A module or a function of a library, not a value one returned (which may be a list)."""
    return isinstance(value, ModuleV) or (isinstance(value, ExternalV) and not value.dotted.endswith("()"))


def _numpy_view(expr: ir.Expr) -> bool:
    """``t.numpy()``: a numpy array, whose elements iterating it reads."""
    return isinstance(expr, ir.Call) and isinstance(expr.func, ir.Attr) and expr.func.name == "numpy"


def _digits(value: Value) -> bool:
    return isinstance(value, ConstV) and isinstance(value.value, str) and value.value.strip().isdigit()


def _as_int(value: Value) -> Value:
    """A string of digits as the number it spells; anything else as it is."""
    if _digits(value):
        assert isinstance(value, ConstV) and isinstance(value.value, str)
        return replace(value, value=int(value.value))
    return value
