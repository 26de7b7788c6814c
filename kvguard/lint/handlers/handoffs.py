"""Work handed on: to other threads (queues, ``threading.Thread`` targets, executors), and to
torch as hooks it calls later on the model's thread."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kvguard.lint import ir
from kvguard.lint.api import HOOK_REGISTRATIONS, QUEUES
from kvguard.lint.evaluator import ANY_BUFFER, Evaluator, Handled
from kvguard.lint.findings import FlowStep
from kvguard.lint.pathstate import Frame, PathState, Put, ThreadStart
from kvguard.lint.reading import (
    EXECUTOR_JOB_AT,
    UNPLACED_QUEUE,
    _executor_job,
    _opaque_stream,
    _site,
    _spelling,
)
from kvguard.lint.results import MAIN_THREAD
from kvguard.lint.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    ExternalV,
    FuncV,
    LambdaV,
    ObjectV,
    QueueGetV,
    QueueV,
    RecordV,
    SeqV,
    StreamV,
    Unknown,
    Value,
)


class HandoffApi(Evaluator):
    def _handoff_method(
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
        """``q.put(x)`` and ``q.get()`` on a project queue, ``pool.submit(fn, ...)`` and its kin."""
        registration = self._inherited_registration(call, method, frame)
        if registration:
            # ``class Offload(saved_tensors_hooks)`` calling ``super().__init__(pack, unpack)``.
            self._register_hooks(registration, args, call, frame)
            return UNKNOWN, state
        if method in ("put", "put_nowait") and isinstance(receiver, QueueV) and args:
            step = FlowStep(frame.module.path, call.span.line, call.span.column, f"put on {receiver.label}")
            self._handoffs_reached += 1
            self._note_put(receiver, args[0], state.copy(), frame, step)
            return UNKNOWN, state
        if (
            method in ("put", "put_nowait")
            and isinstance(receiver, Unknown)
            and receiver.spelling
            and args
            and isinstance(args[0], (RecordV, ObjectV))
            # (not the project's own ``put`` method, on an object it does not place)
            and not any(f.name == method and f.class_name for f in self._functions.values())
        ):
            # A record put on a queue handed in from outside (``self.out_queue.put(chunk)``):
            # outside code wires it to a queue of the project, which a project thread drains.
            outside = QueueV(UNPLACED_QUEUE, receiver.spelling)
            where = f"put on {receiver.spelling}"
            step = FlowStep(frame.module.path, call.span.line, call.span.column, where)
            self._handoffs_reached += 1
            self._note_put(outside, args[0], state.copy(), frame, step)
            return UNKNOWN, state
        if method in ("get", "get_nowait") and isinstance(receiver, QueueV):
            return QueueGetV(receiver), state
        if method in _STREAM_CALLBACKS and isinstance(receiver, StreamV) and args:
            return self._stream_callback(call, method, receiver, args, kwargs, frame, state)
        waited = _worker_wait(method, receiver, call)
        if waited is not None:
            # ``await loop.run_in_executor(None, done.synchronize)``, ``asyncio.to_thread(
            # stream.synchronize)``: a worker thread waits for the event or stream and the
            # caller resumes once it has, as if it had waited itself.
            target, state = self._eval(waited, frame, state)
            found = self._special(call, "synchronize", target, UNKNOWN, [], {}, frame, state)
            return (UNKNOWN, found[1]) if found is not None else (UNKNOWN, state)
        handed = _executor_job(method, receiver, args)
        if handed is not None:
            # ``pool.submit(fn, *args)``, ``pool.map(fn, items)``, ``loop.run_in_executor(pool, fn,
            # *args)``: fn runs on a worker thread, whose current stream is not the producer.
            target, arguments = handed
            step = FlowStep(frame.module.path, call.span.line, call.span.column, f"hands {method} a job")
            initializer = receiver.get("initializer") if isinstance(receiver, RecordV) else None
            site = _site(frame, call)
            self._threads.append(
                ThreadStart(
                    target,
                    arguments,
                    state.copy(),
                    self._flow_to(frame, step),
                    method,
                    self._fallback,
                    initializer=initializer,
                    site=site,
                )
            )
            if method == "submit":
                return RecordV(FUTURE, (("job", ConstV(site, site, frame.module.path, call.span)),)), state
            return UNKNOWN, state
        if (
            method == "add_done_callback"
            and isinstance(receiver, RecordV)
            and receiver.type_name == FUTURE
            and args
        ):
            # Run on the worker thread once the job returns, in the state it left (its copies
            # still in flight unless it waited for them).
            job = receiver.get("job")
            for start in self._threads:
                if isinstance(job, ConstV) and start.site == job.value:
                    start.callbacks.append(args[0])
            return UNKNOWN, state
        if method == "result" and isinstance(receiver, RecordV) and receiver.type_name == FUTURE:
            return self._job_result(receiver, frame, state)
        if method == "start" and not args and isinstance(receiver, ObjectV) and not isinstance(callee, FuncV):
            run = self._method(receiver.module, receiver.qualname, "run")
            if run is not None and self._is_thread_class((receiver.module, receiver.qualname)):
                # A ``threading.Thread`` subclass started: its ``run`` runs on the new thread.
                step = FlowStep(frame.module.path, call.span.line, call.span.column, "starts a thread")
                self._threads.append(
                    ThreadStart(
                        FuncV(run[0], run[1], receiver),
                        (),
                        state.copy(),
                        self._flow_to(frame, step),
                        "thread",
                        self._fallback,
                    )
                )
                return UNKNOWN, state
        if method in HOOK_REGISTRATIONS and not isinstance(callee, FuncV):
            # torch's (a project's own ``register_hook`` method runs as the code it is)
            self._register_hooks(method, args, call, frame)
        return None

    def _note_put(
        self, queue: QueueV, payload: Value, state: PathState, frame: Frame, step: FlowStep
    ) -> None:
        """A payload put on a project queue, in the state it was put in (the collecting pass keeps
        the first put per queue; the reporting pass every one)."""
        if self._reporting or not self._puts.get(queue.key):
            putter = frame.stack[-1] if frame.stack else ""
            self._puts.setdefault(queue.key, []).append(
                Put(payload, state, self._flow_to(frame, step), putter, frame.thread)
            )

    def _stream_callback(
        self,
        call: ir.Call,
        method: str,
        stream: StreamV,
        args: list[Value],
        kwargs: dict[str, Value],
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """``stream.add_callback(fn, arg)`` (numba, cupy) and ``stream.launch_host_func(fn, arg)``
        (cupy): fn runs on a driver thread once the work queued on the stream so far is done,
        as a thread that waited for that stream. A queue's ``put`` given as fn puts there then."""
        synced = self._special(call, "synchronize", stream, UNKNOWN, [], {}, frame, state.copy())
        landed = synced[1] if synced is not None else state.copy()
        payload = (
            args[1] if len(args) > 1 else kwargs.get("arg", ConstV(None, "None", frame.module.path, None))
        )
        step = FlowStep(frame.module.path, call.span.line, call.span.column, f"{method} on {stream.label}")
        job = call.args[0] if call.args else None
        if isinstance(job, ir.Attr) and job.name in ("put", "put_nowait"):
            queue, _ = self._eval(job.base, frame, state.copy())
            if isinstance(queue, QueueV):
                self._note_put(queue, payload, landed, frame, step)
                return UNKNOWN, state
        # numba's and cupy's ``add_callback`` call fn(stream, status, arg); ``launch_host_func``
        # calls fn(arg).
        arguments = (stream, UNKNOWN, payload) if method == "add_callback" else (payload,)
        self._threads.append(
            ThreadStart(args[0], arguments, landed, self._flow_to(frame, step), method, self._fallback)
        )
        return UNKNOWN, state

    def _is_thread_class(self, cls: tuple[str, str]) -> bool:
        """The class or one of its project bases derives from ``threading.Thread``."""
        for module, qualname in [cls, *self._base_classes(cls)]:
            info = self._classes.get((module, qualname))
            if info is None:
                continue
            frame = self._definition_frame(module)
            for base in info.bases:
                value = self._eval(base, frame, PathState())[0]
                if isinstance(value, ExternalV) and value.dotted == "threading.Thread":
                    return True
        return False

    def _inherited_registration(self, call: ir.Call, method: str, frame: Frame) -> str:
        """The torch hook registration a method's class extends, where the method calls its
        ``super().__init__``; "" otherwise."""
        current = self._super_caller(call, frame) if method == "__init__" else None
        cls = self._classes.get((frame.module.name, current.class_name)) if current else None
        if cls is None:
            return ""
        spelled = (_spelling(base).rsplit(".", 1)[-1] for base in cls.bases)
        return next((name for name in spelled if name in HOOK_REGISTRATIONS), "")

    def _register_hooks(self, how: str, args: Sequence[Value], call: ir.Call, frame: Frame) -> None:
        """Each project function given to torch as a hook runs later, on the thread that runs
        the model, at a point of its work the registering code does not know: from a state in
        which nothing is ordered, just after the model queued kernels (a module's forward, the
        layers before it) that may have written or read any buffer, with arguments the analysis
        does not place."""
        step = FlowStep(frame.module.path, call.span.line, call.span.column, f"registers a hook ({how})")
        for hook in args:
            if isinstance(hook, (FuncV, LambdaV)):
                start = PathState()
                start.writes[ANY_BUFFER] = (
                    self._clock,
                    call.span.line,
                    self._current(frame, start, True).key,
                )
                self._threads.append(
                    ThreadStart(hook, (), start, self._flow_to(frame, step), how, self._fallback, True)
                )

    def _handoff_function(
        self,
        dotted: str,
        last: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """Queues and threads the project makes, and saved-tensor hooks."""
        if last in HOOK_REGISTRATIONS:
            self._register_hooks(last, args, call, frame)
            return ExternalV(f"{dotted}()"), state
        if last in QUEUES:
            site = _site(frame, call)
            owner = frame.env.get("self")
            # One queue per instance that makes it (a handler per direction, each its own).
            key = f"{site}@{owner.site}" if isinstance(owner, ObjectV) and owner.site else site
            return QueueV(key, f"the queue created at {site}"), state
        if last == "Thread":
            target = kwargs.get("target")
            arguments = kwargs.get("args")
            if target is not None:
                step = FlowStep(frame.module.path, call.span.line, call.span.column, "starts a thread")
                items = arguments.items if isinstance(arguments, SeqV) else ()
                self._threads.append(
                    ThreadStart(
                        target, items, state.copy(), self._flow_to(frame, step), dotted, self._fallback
                    )
                )
            return ExternalV(f"{dotted}()"), state  # its ``start()`` is the library's
        callback = args[0] if len(args) == 1 else None
        if last in _CALLBACK_TYPES and dotted.startswith("ctypes.") and isinstance(callback, FuncV | LambdaV):
            return callback, state  # ``HostFn(self._on_landed)``: a C callback calling it
        if last in _HOST_FUNC_LAUNCHES and len(args) >= 2 and isinstance(args[1], (FuncV, LambdaV)):
            stream = _opaque_stream(args[0])
            if stream is not None and not stream.key.startswith("opaque:"):
                # ``cudaLaunchHostFunc(stream, fn, data)`` is ``stream.launch_host_func(fn, data)``.
                shifted = replace(call, args=call.args[1:])
                method = "launch_host_func"
                return self._stream_callback(shifted, method, stream, list(args[1:]), kwargs, frame, state)
        if last == "as_completed" and dotted.startswith("concurrent.futures") and args:
            return args[0], state  # the futures given, in the order their jobs finish
        if last == "ThreadPoolExecutor" and isinstance(kwargs.get("initializer"), (FuncV, LambdaV)):
            # Each worker thread runs the initializer before its jobs (``set_stream(s)`` there
            # makes s their current stream).
            return RecordV(last, (("initializer", kwargs["initializer"]),)), state
        return None

    def _job_result(self, future: RecordV, frame: Frame, state: PathState) -> tuple[Value, PathState]:
        """``future.result()``: the host waits for the job's return and gets its value; copies
        the job issued and did not wait for are still in flight (``copy_to_host`` into a pinned
        array the job returns, its stream never synchronized)."""
        job = future.get("job")
        start = next((s for s in self._threads if isinstance(job, ConstV) and s.site == job.value), None)
        if start is None or start.same_thread or not isinstance(start.target, (FuncV, LambdaV)):
            return UNKNOWN, state
        worker, worker_state = self._on_worker(start, start.target, frame.depth + 1, frame.stack)
        started = self._clock
        value, end = self._call_job(start.target, start.arguments, worker_state, worker)
        left = {key: copy for key, copy in end.pending.items() if copy.time >= started}
        if left:
            state.pending = {**state.pending, **left}
        return value, state

    def _on_worker(
        self, start: ThreadStart, target: FuncV | LambdaV, depth: int = 0, stack: tuple[str, ...] = ()
    ) -> tuple[Frame, PathState]:
        """Where a handed-over job starts: on its own thread, whose current stream is not the
        producer's (an asyncio task's is), in the state the hand-over left."""
        name = target.qualname if isinstance(target, FuncV) else "a lambda"
        thread = MAIN_THREAD if start.same_thread else f"thread running {name}"
        state = start.state.copy()
        if not start.same_thread:
            state.streams = ()
        return Frame(self._modules[target.module], {}, thread, start.flow, depth, stack), state

    def _call_job(
        self, job: FuncV | LambdaV, arguments: tuple[Value, ...], state: PathState, worker: Frame
    ) -> tuple[Value, PathState]:
        """A function or lambda called with these arguments, as a worker thread calls it."""
        if isinstance(job, FuncV):
            return self._invoke(job, (*job.partial, *arguments), (), state, worker, None)
        return self._call_lambda(job, arguments, state, worker, None)


# The record standing for the future ``pool.submit(...)`` returns.
FUTURE = "Future"

# Stream methods that run a host function once the stream's queued work is done.
_STREAM_CALLBACKS = ("add_callback", "launch_host_func")
# The driver's and runtime's form of ``launch_host_func``, the stream given first.
_HOST_FUNC_LAUNCHES = ("cuLaunchHostFunc", "cudaLaunchHostFunc")
# ctypes callback types, called with the Python function a C callback runs.
_CALLBACK_TYPES = ("CFUNCTYPE()", "WINFUNCTYPE()", "PYFUNCTYPE()")

# Hand-offs whose result the caller awaits (``submit`` returns a future it may never wait on).
_AWAITED_JOBS = ("run_in_executor", "to_thread")


def _worker_wait(method: str, receiver: Value | None, call: ir.Call) -> ir.Expr | None:
    """What a job handed to a worker thread synchronizes, where the job is a bound
    ``synchronize`` (``run_in_executor(pool, event.synchronize)``, ``to_thread(s.synchronize)``)."""
    if isinstance(receiver, (ObjectV, ClassV)) or method not in _AWAITED_JOBS:
        return None  # the project's own method of that name is followed as a call
    position = EXECUTOR_JOB_AT[method]
    if len(call.args) <= position:
        return None
    job = call.args[position]
    if isinstance(job, ir.Attr) and job.name == "synchronize" and len(call.args) == position + 1:
        return job.base
    return None
