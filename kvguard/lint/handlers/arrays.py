"""cupy and numba device arrays: copies spelt as their methods (``d.copy_to_host(h, stream=s)``,
``d.set(h, stream=s)``, ``a.get(stream=s)``)."""

from __future__ import annotations

from dataclasses import replace

from kvguard.lint import ir
from kvguard.lint.api import ARRAY_METHOD_COPIES, ARRAY_METHOD_STREAM_ARGUMENT
from kvguard.lint.evaluator import Evaluator, Handled
from kvguard.lint.facts import Memory
from kvguard.lint.pathstate import Frame, PathState
from kvguard.lint.reading import _buffer_site, _opaque_stream, _root_spelling, _spelling, _truth, _written
from kvguard.lint.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    ExternalV,
    ModuleV,
    ObjectV,
    QueueV,
    StreamV,
    TensorV,
    UnionV,
    Unknown,
    Value,
    memory_of,
)


class ArrayApi(Evaluator):
    def _array_method(
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
        """Copies spelt as methods of device arrays."""
        if (
            method in ARRAY_METHOD_COPIES
            and receiver is not None
            and isinstance(call.func, ir.Attr)
            # ``set`` is a common name: a copy only into device memory or with a stream.
            and (method != "set" or (args and ("stream" in kwargs or memory_of(receiver) is Memory.DEVICE)))
            and not isinstance(receiver, (ObjectV, ClassV, ModuleV, ExternalV, QueueV))
        ):
            return self._array_method_copy(call, method, receiver, args, kwargs, frame, state)
        given_stream = kwargs.get("stream")
        if method in ("get", "asnumpy") and (
            isinstance(given_stream, StreamV)
            or (isinstance(given_stream, Unknown) and bool(given_stream.spelling))
            # one of a pool's streams (``stream=pool.acquire()``)
            or (
                isinstance(given_stream, UnionV) and all(isinstance(o, StreamV) for o in given_stream.options)
            )
        ):
            # cupy: ``array.get(stream=s)``, into ``out=`` if given; ``requests.get(url,
            # stream=True)`` passes a constant.
            out, out_expr = kwargs.get("out"), dict(call.kwargs).get("out")
            fetched: Value
            if out is not None and out_expr is not None:
                # Into the host array given, whatever the code shows of it.
                fetched, written = (
                    _placed(out, Memory.HOST),
                    _written(self._identity(out, out_expr, frame), out_expr),
                )
            else:
                made = TensorV(Memory.HOST, _buffer_site("copy", frame, call))
                fetched, written = made, (made.key, f"the result of {_spelling(call.func)}()")
            # ``cupy.asnumpy(a, stream=s)`` copies its argument; ``a.get(stream=s)`` its receiver.
            source_expr = call.args[0] if method == "asnumpy" and call.args else _receiver_expr(call)
            source_value = args[0] if method == "asnumpy" and args else receiver
            source = (
                source_value if source_value is not None and memory_of(source_value) is not None else None
            )
            return fetched, self._copy(
                call,
                method,
                frame,
                state,
                _opaque_stream(given_stream),
                source or TensorV(Memory.DEVICE),
                fetched,
                _root_spelling(source_expr),
                None,
                written=written,
                # cupy waits for the copy before returning unless ``blocking=False``.
                asynchronous=_truth(kwargs.get("blocking", ConstV(True, "True", "", None))) is False,
            )
        return None

    def _array_function(
        self,
        dotted: str,
        last: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """numba's ``cuda.to_device(h, stream=s, to=d)``: a copy into the device array ``d``, as
        ``d.copy_to_device(h, stream=s)`` is (without ``to=`` it allocates)."""
        if last == "to_device" and "to" in kwargs and args:
            return self._array_method_copy(
                call, "copy_to_device", kwargs["to"], list(args), kwargs, frame, state
            )
        return None

    def _array_method_copy(
        self,
        call: ir.Call,
        method: str,
        receiver: Value,
        args: list[Value],
        kwargs: dict[str, Value],
        frame: Frame,
        state: PathState,
    ) -> tuple[Value, PathState]:
        """numba's ``d.copy_to_host(h, stream=s)`` / ``d.copy_to_device(h, stream=s)``, cupy's
        ``d.set(h, stream=s)``: the receiver is the device array."""
        at = ARRAY_METHOD_STREAM_ARGUMENT.get(method, 1)
        given = kwargs.get("stream", args[at] if len(args) > at else None)
        stream = _opaque_stream(given) if given is not None else None
        stream = stream if stream is not None else self._stream(frame, state)
        # The form says where each side lives (a device array's method, a host array given to
        # it); the buffers stay what they are.
        device = _placed(receiver, Memory.DEVICE)
        spelled = call.func.base if isinstance(call.func, ir.Attr) else None
        if ARRAY_METHOD_COPIES[method] == "to host":
            host = args[0] if args else TensorV(Memory.HOST, _buffer_site("copy", frame, call))
            host = _placed(host, Memory.HOST)
            target = call.args[0] if call.args else None
            written = _written(self._identity(host, target, frame), target) if target else ("", "")
            source_key = _root_spelling(spelled) if spelled is not None else ""
            return host, self._copy(
                call, method, frame, state, stream, device, host, source_key, None, written=written
            )
        source = args[0] if args else UNKNOWN
        source = source if memory_of(source) is not None else TensorV(Memory.HOST)
        return receiver, self._copy(call, method, frame, state, stream, source, device, "", None)


def _placed(value: Value, memory: Memory) -> Value:
    """A copy side the form places (the buffer it names, where the code does not place it)."""
    if isinstance(value, TensorV) and value.memory is Memory.UNKNOWN:
        return replace(value, memory=memory)
    return value if memory_of(value) is not None else TensorV(memory)


def _receiver_expr(call: ir.Call) -> ir.Expr:
    """What a method is called on (``a`` in ``a.get(...)``)."""
    return call.func.base if isinstance(call.func, ir.Attr) else call.func
