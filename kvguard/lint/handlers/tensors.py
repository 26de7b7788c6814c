"""Tensor APIs: where memory is allocated and moves (``copy_``, ``.to``, ``.cpu``, allocators,
``pin_memory``), views that keep a buffer, in-place writes, and host reads of a buffer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kvguard.lint import ir
from kvguard.lint.api import (
    ADDRESS_VIEWS,
    ALLOCATORS,
    DATA_CONSTRUCTORS,
    DEVICE_ALLOCATORS,
    DEVICE_MODULES,
    DEVICE_NAMES,
    HOST_COMPUTE_METHODS,
    HOST_READ_ARGUMENT_METHODS,
    HOST_READ_FUNCTIONS,
    HOST_READ_METHODS,
    IN_PLACE_FILLS,
    LIKE_ALLOCATORS,
    NEW_ALLOCATORS,
    NUMPY_VIEWS,
    OS_WRITES,
    PINNED_ALLOCATORS,
    RAW_ADDRESS_WRAPPERS,
    RAW_ALLOCATORS,
    SAME_MEMORY_METHODS,
    TORCH_NON_COMPUTING,
    TORCH_NON_TENSOR,
)
from kvguard.lint.evaluator import ENTRY_OF, Evaluator, Handled, _only_addresses
from kvguard.lint.facts import Memory
from kvguard.lint.pathstate import Frame, PathState
from kvguard.lint.reading import (
    _UNPLACED,
    _allocation_memory,
    _buffer_site,
    _device_memory,
    _may_be_true,
    _out_parameter,
    _root_spelling,
    _spelling,
    _truth,
    _written,
)
from kvguard.lint.results import MAIN_THREAD
from kvguard.lint.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    ExternalV,
    ModuleV,
    ObjectV,
    SeqV,
    TensorV,
    UnionV,
    Unknown,
    Value,
    host_elements,
    join,
    memory_of,
    options,
    taint,
    view_of,
)


class TensorApi(Evaluator):
    def _host_read_method(
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
        """Methods that read a buffer on the host (``.tolist()``, ``.sum()`` of a host tensor,
        ``f.write(buffer)``). They are noted, and the call is read on by the other handlers."""
        if (
            isinstance(call.func, ir.Attr)
            and method in HOST_COMPUTE_METHODS
            and receiver is not None
            and memory_of(receiver) is Memory.HOST
        ):
            self._host_read(receiver, call.func.base, f"`.{method}()`", call, frame, state)
            # Computed on the CPU now (``pinned.float()``): a new tensor, which later reads of
            # the result do not read the pinned buffer through.
            return TensorV(Memory.HOST), state
        if (
            isinstance(call.func, ir.Attr)
            and method == "to"
            and receiver is not None
            and memory_of(receiver) is Memory.HOST
            and "device" not in kwargs
            and all(_is_dtype(arg) for arg in args)
        ):
            # ``pinned.to(dtype=torch.float32)``: a conversion the CPU computes now.
            self._host_read(receiver, call.func.base, "`.to()`", call, frame, state)
            return TensorV(Memory.HOST), state
        if isinstance(call.func, ir.Attr) and receiver is not None and method in HOST_READ_METHODS:
            self._host_read(receiver, call.func.base, f"`.{method}()`", call, frame, state)
            if method in ("item", "tolist"):
                memory = memory_of(receiver)
                if memory is Memory.DEVICE:
                    self._blocking_read(frame, state)
                elif memory is not Memory.HOST and not _addresses(receiver):
                    # Addresses the code computed (``base + ids * stride``) are host integers.
                    self._maybe_blocking_read(f"`.{method}()` at line {call.span.line}", frame, state)
        if method in HOST_READ_ARGUMENT_METHODS and args:
            self._host_read(args[0], call.args[0] if call.args else None, f"`{method}()`", call, frame, state)
        return None

    def _tensor_method(
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
        """Copies, moves and allocations spelt as tensor methods."""
        if method == "set_" and args and isinstance(call.func, ir.Attr) and isinstance(receiver, TensorV):
            # ``t.set_(source, ...)`` makes t a view of source's storage (no kernel runs): it now
            # lives where that storage lives, and a storage built over a raw address
            # (``_construct_storage_from_data_pointer(ptr, ...)``) is memory the code does not place.
            source = args[0]
            rebound = TensorV(
                memory_of(source) or Memory.UNKNOWN, mapped=isinstance(source, TensorV) and source.mapped
            )
            return rebound, self._assign(call.func.base, rebound, frame, state, call)
        if method == "copy_" and receiver is not None and args and isinstance(call.func, ir.Attr):
            held = call.func.base
            non_blocking = args[1] if len(args) > 1 else kwargs.get("non_blocking")
            args = [_unguessed(args[0], receiver, non_blocking), *args[1:]]
            receiver = _unguessed(receiver, args[0], non_blocking)
            # A copy between two GPU buffers is a kernel on its stream, not a transfer.
            on_device = memory_of(receiver) is Memory.DEVICE and memory_of(args[0]) is Memory.DEVICE
            state = self._write(held, frame, state, call.span, kernel=on_device)
            identity = self._identity(receiver, held, frame)
            state = self._copy(
                call,
                "Tensor.copy_",
                frame,
                state,
                self._stream(frame, state),
                args[0],
                receiver,
                _root_spelling(call.args[0]),
                None,
                written=_written(identity, held),
                asynchronous=_may_be_true(non_blocking),
            )
            container = self._identity(UNKNOWN, held, frame) if isinstance(held, ir.Index) else ""
            if container and container != identity and identity in state.pending:
                # Also as an entry of its container (``state[buf_key]``), for a caller that reads
                # it back under a key it computes.
                state.pending[f"{ENTRY_OF}{container}"] = state.pending[identity]
            return receiver, state
        if (
            method == "cpu"
            and receiver is not None
            and not args
            and not isinstance(receiver, (ObjectV, ExternalV))
        ):
            state = self._copy(
                call,
                "Tensor.cpu",
                frame,
                state,
                self._stream(frame, state),
                receiver,
                TensorV(Memory.HOST),
                _root_spelling(call.func.base) if isinstance(call.func, ir.Attr) else "",
                None,
                asynchronous=False,
                implied_destination=True,
            )
            return TensorV(Memory.HOST), state
        if (
            method == "to"
            and receiver is not None
            and not isinstance(receiver, ObjectV)
            and not _library_object(receiver)
        ):
            device = self._as_device(args[0] if args else kwargs.get("device"))
            moved_to = _device_memory(device) if device is not None else None
            if isinstance(device, UnionV) and "dtype" not in kwargs:
                # ``t.to(x.device)`` where x may be one of several: one place if they agree.
                places = {_device_memory(option) for option in device.options}
                if len(places) != 1 or None in places:
                    return TensorV(Memory.UNKNOWN), state
                moved_to = places.pop()
            if moved_to is Memory.HOST:
                result = TensorV(Memory.HOST, _buffer_site("copy", frame, call))
                state = self._copy(
                    call,
                    "Tensor.to",
                    frame,
                    state,
                    self._stream(frame, state),
                    receiver,
                    result,
                    _root_spelling(call.func.base) if isinstance(call.func, ir.Attr) else "",
                    None,
                    written=(result.key, f"the result of {_spelling(call.func)}()"),
                    asynchronous=_may_be_true(kwargs.get("non_blocking")),
                    # ``.to("cpu", non_blocking=True)`` asks for an asynchronous copy to the host:
                    # the code chose that side. Without it, the form only names where data ends.
                    implied_destination=_truth(kwargs.get("non_blocking", UNKNOWN)) is not True,
                )
                return result, state
            if moved_to is Memory.DEVICE:
                return TensorV(Memory.DEVICE), state
            if isinstance(device, Unknown) and "dtype" not in kwargs:
                return TensorV(Memory.UNKNOWN), state  # moved to a device the code does not show
            return receiver, state
        if method in ("cuda",) and isinstance(receiver, (TensorV, Unknown)):
            return TensorV(Memory.DEVICE), state
        if method in NEW_ALLOCATORS and isinstance(receiver, TensorV):
            device = kwargs.get("device")
            placed = _device_memory(device) if device is not None else receiver.memory
            site = _buffer_site("alloc", frame, call)
            self._note_pooled(frame, site)
            return self._fresh_buffer(placed or Memory.UNKNOWN, site, method, state), state
        if method == "pin_memory" and args and not isinstance(receiver, TensorV):
            # ``get_accelerator().pin_memory(t)``: the tensor is the argument.
            pinned = args[0]
            return TensorV(Memory.HOST, pinned.key if isinstance(pinned, TensorV) else ""), state
        if method in ADDRESS_VIEWS and args and isinstance(pointed := _one_buffer(args[0]), TensorV):
            return replace(pointed, address=False), state
        if method in ("pin_memory", "numpy") and isinstance(receiver, (TensorV, Unknown)):
            return TensorV(Memory.HOST, receiver.key if isinstance(receiver, TensorV) else ""), state
        return None

    def _tensor_method_fallback(
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
        """What any other tensor method gives: a written buffer for an in-place method, an address,
        a view of the same memory, or a new tensor where the receiver lives."""
        func = call.func
        in_place = method.endswith("_") and not method.startswith("_") and isinstance(func, ir.Attr)
        if in_place and not isinstance(receiver, (ObjectV, ModuleV, ClassV)):
            # ``kv.index_copy_(1, slots, staged[:, i])`` reads staged on its stream, also where
            # the code does not place kv.
            self._kernel_reads(args, call, frame, state)
        if (
            in_place
            and isinstance(func, ir.Attr)
            and not isinstance(receiver, (ObjectV, ExternalV, ModuleV, ClassV))
        ):
            if (
                isinstance(receiver, TensorV)
                and receiver.memory is Memory.HOST
                and method not in IN_PLACE_FILLS
            ):
                # ``pinned.mul_(scale)`` computes from the buffer on the CPU at once.
                self._host_read(receiver, func.base, f"`.{method}()`", call, frame, state)
            if frame.thread == MAIN_THREAD and self._stream(frame, state) is None:
                state.launched = self._clock  # an in-place kernel on the producer's stream
            return receiver or UNKNOWN, self._write(func.base, frame, state, call.span)
        if method == "data_ptr" and isinstance(receiver, Unknown):
            # Into memory the code does not place, known by how its origin spells it.
            key = f"{_UNPLACED}{receiver.spelling}" if receiver.spelling else ""
            return TensorV(Memory.UNKNOWN, key, address=True), state
        if method == "data_ptr" and isinstance(receiver, TensorV):
            return replace(receiver, address=True), state
        if method in SAME_MEMORY_METHODS and isinstance(receiver, (TensorV, SeqV, UnionV)):
            return view_of(receiver), state
        if isinstance(receiver, TensorV) and receiver.memory is not Memory.UNKNOWN:
            # Any other tensor method (``x.norm()``, ``x.sum()``) computes where x lives.
            return TensorV(receiver.memory), state
        return None

    def _kernel_reads(self, args: Sequence[Value], call: ir.Call, frame: Frame, state: PathState) -> None:
        """A kernel on the current stream reads the GPU buffers it is given (attention over a
        prefetched slot): a load into one must wait for it."""
        running = self._running_on(frame, state)
        for value in args:
            if isinstance(value, TensorV) and value.key and value.memory is Memory.DEVICE:
                state.reads[value.key] = (self._clock, call.span.line, running)

    def _host_read_function(
        self,
        dotted: str,
        last: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """Functions that read their arguments on the host (``bytes(t)``, ``numpy.asarray(t)``)."""
        # Positional and keyword arguments alike (``np.savez(path, q=host_q)``); ``out=`` is written.
        given = [
            *zip(args, call.args, strict=False),
            *((kwargs[key], expr) for key, expr in call.kwargs if key in kwargs and key != "out"),
        ]
        if last in HOST_READ_FUNCTIONS:
            for value, expr in given:
                self._host_read(value, expr, f"`{last}()`", call, frame, state)
        if dotted == f"torch.{last}" and last in HOST_COMPUTE_METHODS:
            # ``torch.isfinite(pinned)`` computes on the CPU at once, as ``pinned.isfinite()``.
            for value, expr in given:
                if memory_of(value) is Memory.HOST:
                    self._host_read(value, expr, f"`{dotted}()`", call, frame, state)
        read_at = {"ctypes.string_at": 0, "ctypes.memmove": 1}.get(dotted)
        pointer = args[read_at] if read_at is not None and len(args) > read_at else None
        if read_at is not None and isinstance(pointer, TensorV):
            # ``ctypes.string_at(chunk, n)``: the host reads the memory at that address now.
            memory = replace(pointer, address=False)
            self._host_read(memory, call.args[read_at], f"`{dotted}()`", call, frame, state)
        if dotted in _NUMPY_ARRAYS_OVER and args and isinstance(args[0], TensorV):
            # An array over that memory (``as_array((c_uint8 * n).from_address(ptr))``).
            return replace(args[0], address=False), state
        if dotted.startswith("numpy.") and last not in NUMPY_VIEWS and last not in HOST_READ_FUNCTIONS:
            for value, expr in given:
                if host_elements(value):
                    self._host_read(value, expr, f"`{dotted}()`", call, frame, state)
        if dotted.startswith("numpy.") and last in _NUMPY_JOINS and args:
            parts = [
                item
                for option in options(args[0])
                for item in (option.items if isinstance(option, SeqV) else (option,))
            ]
            if parts and _addresses(join(parts)):
                return join(parts), state  # ``np.concatenate((k_ptrs, v_ptrs))``: still addresses
        if dotted in OS_WRITES and len(args) > 1 and len(call.args) > 1:
            # ``os.write(fd, view)``, ``os.pwritev(fd, [view, ...], offset)``
            for held in options(args[1]):
                for item in held.items if isinstance(held, SeqV) else (held,):
                    self._host_read(item, call.args[1], f"`{dotted}()`", call, frame, state)
            if last == "int" and len(args) == 1 and isinstance(args[0], TensorV) and args[0].address:
                return args[0], state  # ``int(dst[i])`` over a table of addresses: an address
        return None

    def _tensor_function(
        self,
        dotted: str,
        last: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """Allocators of torch, cupy and numba, and what names a device."""
        if dotted.startswith("numba.cuda.atomic.") and call.args:
            # In a kernel, ``cuda.atomic.add(counter, 0, n)`` writes the array it is given.
            return UNKNOWN, self._write(call.args[0], frame, state, call.span)
        if dotted.startswith("torch.") and last in SAME_MEMORY_METHODS and args:
            return view_of(args[0]), state  # ``torch.narrow(t, 0, a, n)`` is ``t.narrow(0, a, n)``
        if dotted.startswith("torch.") and last == "from_dlpack" and args and isinstance(args[0], TensorV):
            return view_of(args[0]), state  # the same memory, seen as a torch tensor
        if (
            dotted == "cupy.asarray"
            and args
            and isinstance(args[0], TensorV)
            and args[0].memory in (Memory.DEVICE, Memory.UNKNOWN)
        ):
            # A buffer seen as a cupy array, which lives on the device: device memory is the
            # same buffer, no copy, and no wait (``from_dlpack``'s handshake is one).
            return replace(args[0], memory=Memory.DEVICE), state
        if dotted in ("cupy.cuda.UnownedMemory", "cupy.cuda.MemoryPointer") and args:
            return args[0], state  # the memory at an address the code has (``t.data_ptr()``)
        if dotted == "cupy.ndarray":
            # A cupy array lives on the device: over the memory given (``memptr=``) or a new
            # allocation. Host memory the code placed stays host (a mapped pinned block).
            given = kwargs.get("memptr")
            if isinstance(given, TensorV):
                memory = Memory.HOST if given.memory is Memory.HOST else Memory.DEVICE
                return replace(given, memory=memory, address=False), state
            if given is None:
                return self._fresh_buffer(
                    Memory.DEVICE, _buffer_site("alloc", frame, call), last, state
                ), state
        if last in DATA_CONSTRUCTORS and args and _only_addresses(args[0]):
            # ``torch.tensor([t.data_ptr() + i * n for i in ids], pin_memory=True)``: a table
            # of addresses into t; a copy given it reads or writes t.
            return taint([args[0]]), state
        if last in ALLOCATORS or last in LIKE_ALLOCATORS or last in DATA_CONSTRUCTORS:
            site = _buffer_site("alloc", frame, call)
            self._note_pooled(frame, site)
            if dotted.startswith(DEVICE_MODULES) and not dotted.startswith("cupyx"):
                return self._fresh_buffer(
                    Memory.DEVICE, site, last, state
                ), state  # cupy's arrays live on the device
            like = last in LIKE_ALLOCATORS or last in DATA_CONSTRUCTORS
            placed_on = {"device": device} if (device := self._as_device(kwargs.get("device"))) else {}
            memory = _allocation_memory(
                args, {**kwargs, **placed_on}, like=like, from_data=last in DATA_CONSTRUCTORS
            )
            made = self._fresh_buffer(memory, site, last, state)
            if last in DATA_CONSTRUCTORS and memory is Memory.DEVICE:
                # ``torch.tensor(ids, device="cuda")`` copies the data in on the current stream:
                # work there is ordered after it.
                state.writes[site] = (self._clock, call.span.line, self._running_on(frame, state))
            return made, state
        if last in PINNED_ALLOCATORS:
            return TensorV(Memory.HOST, _buffer_site("alloc", frame, call)), state
        if last in RAW_ALLOCATORS:
            pointer = TensorV(RAW_ALLOCATORS[last], _buffer_site("alloc", frame, call), address=True)
            out = _out_parameter(call.args[0]) if call.args else None
            if out is not None:
                # ``lib.cudaHostAlloc(ctypes.byref(ptr), n, flags)``: the pointer is written
                # through the reference; the call returns the status.
                return UNKNOWN, self._assign(out, pointer, frame, state, call)
            return SeqV((UNKNOWN, pointer)), state  # ``err, ptr = cudart.cudaMalloc(n)``
        if last in RAW_ADDRESS_WRAPPERS:
            return TensorV(Memory.UNKNOWN, _buffer_site("alloc", frame, call), mapped=True), state
        if last in DEVICE_ALLOCATORS and dotted.startswith(DEVICE_MODULES):
            return self._fresh_buffer(Memory.DEVICE, _buffer_site("alloc", frame, call), last, state), state
        if last in DEVICE_NAMES:
            return ConstV("cuda", dotted, frame.module.path, None), state
        if last == "device" and args and isinstance(args[0], ConstV):
            return args[0], state  # ``torch.device("cpu")`` places memory as "cpu" does
        tensor_function = (
            dotted == f"torch.{last}" and last not in TORCH_NON_COMPUTING and not last.startswith("is_")
        )
        if tensor_function or dotted.startswith("torch.nn.functional."):
            self._kernel_reads(args, call, frame, state)
        computed = taint(list(args)) if tensor_function else UNKNOWN
        if isinstance(computed, TensorV):
            # ``torch.argmax(logits, -1)``, ``torch.cat(parts)``: a new tensor computed from
            # tensors, where they are (torch needs them on one device).
            if computed.memory is Memory.DEVICE:
                return self._computed(computed, frame, call, state), state
            return replace(computed, key="", address=False), state
        if tensor_function and last not in TORCH_NON_TENSOR and any(_unplaced_result(a) for a in args):
            # Over values the code does not place (a model's logits): a tensor, where they are.
            return TensorV(Memory.UNKNOWN), state
        return None


def _unplaced_result(value: Value) -> bool:
    """A value the code does not place: unknown, or what code outside the project returned
    (a model's output)."""
    return isinstance(value, Unknown) or (isinstance(value, ExternalV) and value.dotted.endswith("()"))


def _library_object(value: Value) -> bool:
    """A library's module or function, not a result it returned (which may be a tensor)."""
    return isinstance(value, ExternalV) and not value.dotted.endswith("()")


def _unguessed(side: Value, other: Value, non_blocking: Value | None) -> Value:
    """One side of an asynchronous copy whose host memory was only guessed from a field name,
    when the other side is host memory too: a host-to-host copy asks for no asynchrony, so the
    guess was wrong and the side is not placed."""
    if (
        isinstance(side, TensorV)
        and side.guessed
        and side.memory is Memory.HOST
        and memory_of(other) is Memory.HOST
        and non_blocking is not None
        and _truth(non_blocking) is True
    ):
        return Unknown()
    return side


def _one_buffer(value: Value) -> Value:
    """The buffer a pointer is into, where it is one buffer or null (a field ``close()`` resets
    to ``None`` or ``c_void_p()``)."""
    if isinstance(value, UnionV):
        buffers = [option for option in value.options if not _null_pointer(option)]
        if len(buffers) == 1:
            return buffers[0]
    return value


def _null_pointer(value: Value) -> bool:
    return (isinstance(value, ConstV) and value.value is None) or (
        isinstance(value, ExternalV) and value.dotted in ("ctypes.c_void_p()", "ctypes.c_char_p()")
    )


# numpy functions that make one array of the arrays they are given.
_NUMPY_JOINS = frozenset({"concatenate", "stack", "hstack", "vstack", "column_stack"})
# numpy arrays over memory they are given, not copies of it.
_NUMPY_ARRAYS_OVER = frozenset({"numpy.frombuffer", "numpy.ctypeslib.as_array"})


def _addresses(value: Value) -> bool:
    """Every option is an address the code computed from a buffer (``ptr + offset``)."""
    return all(isinstance(option, TensorV) and option.address for option in options(value))


def _is_dtype(value: Value) -> bool:
    """``torch.float32`` or a name spelt as a dtype (``config.dtype``): no device."""
    if isinstance(value, ExternalV):
        return value.dotted.startswith("torch.") and not value.dotted.endswith(("device", "()"))
    return isinstance(value, Unknown) and value.spelling.rpartition(".")[2].endswith("dtype")
