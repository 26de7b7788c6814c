"""Stream and event APIs: torch and device-generic stream objects, cupy and numba streams,
cuda.core, and the cuda-python driver and runtime functions that create, order, record and
synchronize streams and events."""

from __future__ import annotations

from kvguard.lint import ir
from kvguard.lint.api import (
    ACCELERATOR_QUERIES,
    CURRENT_STREAM,
    DEVICE_SYNCS,
    EVENT_CREATORS,
    EVENT_RECORDS,
    EVENT_SYNCS,
    HANDLE_WRAPPERS,
    STREAM_CONTEXTS,
    STREAM_CREATORS,
    STREAM_SYNCS,
    STREAM_WAITS,
)
from kvguard.lint.evaluator import Evaluator, Handled
from kvguard.lint.pathstate import Frame, PathState
from kvguard.lint.reading import (
    _DEFAULT_UNDER,
    _DISPLACED_DEFAULT,
    _NEW_STREAM,
    _made_site,
    _opaque_stream,
    _out_parameter,
    _site,
    _spelling,
    _stream_context,
    _stream_options,
)
from kvguard.lint.results import MAIN_THREAD
from kvguard.lint.values import (
    UNKNOWN,
    ConstV,
    ContextV,
    EventV,
    ExternalV,
    ModuleV,
    SeqV,
    StreamV,
    UnionV,
    Unknown,
    Value,
    join,
)


class StreamApi(Evaluator):
    def _stream_method(
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
        """``s.wait_stream(p)``, ``s.wait_event(e)``, ``e.record(s)``, ``e.wait(s)``, ``x.synchronize()``
        and their cupy and cuda.core spellings."""
        now = self._clock
        if method in ACCELERATOR_QUERIES and not args and not kwargs:
            answer = ACCELERATOR_QUERIES[method]
            return ConstV(answer, f"{_spelling(call.func)}()", frame.module.path, call.span), state
        if method == "enter_context" and args and (entered := _stream_context(args[0])) is not None:
            # ``stack.enter_context(torch.cuda.stream(s))``: s is current until the ExitStack's
            # block ends (``Evaluator._with_context`` restores the streams there).
            state.streams = (*state.streams, entered)
            return args[0], state
        if (
            method in ("wait_stream", "wait_event")
            and self._fallback
            and isinstance(receiver, Unknown)
            and args
        ):
            # Run without its caller, a function waits on a stream it was given: the caller may
            # pass the very stream the copy runs on, so every stream counts as ordered.
            state.ordered_all = now
            return UNKNOWN, state
        if (
            method in ("record", "wait", "wait_event", "wait_stream", "record_event")
            and isinstance(receiver, Unknown)
            and not receiver.spelling
            and isinstance(call.func, ir.Attr)
        ):
            # A field of an object the analysis did not place (``lease.done`` of a lease taken
            # from a queue), named as the code spells it: records and waits so spelled meet.
            receiver = Unknown(_spelling(call.func.base))
        if method in ("wait_stream", "wait_event", "record_event") and isinstance(receiver, Unknown):
            receiver = _opaque_stream(receiver) if receiver.spelling else receiver
        if method == "sync" and not args and isinstance(receiver, (StreamV, EventV)):
            method = "synchronize"  # cuda.core's ``Stream.sync()`` / ``Event.sync()``
        if method == "async_done" and not args:
            # numba: ``await stream.async_done()`` resumes once the stream's work is done, a
            # host wait for it (the coroutine waits, as ``synchronize`` would).
            method = "synchronize"
            if isinstance(receiver, Unknown) and receiver.spelling:
                receiver = _opaque_stream(receiver)
        if "stream" in kwargs and method in ("record", "wait") and not args:
            args = [kwargs["stream"]]  # ``event.wait(stream=s)``, ``event.record(stream=s)``
        if (
            method in ("record", "wait")
            and isinstance(receiver, Unknown)
            and receiver.spelling
            and (method == "record" or args)
        ):
            receiver = EventV(f"opaque:{receiver.spelling}", receiver.spelling)
        if method == "wait_event" and args and isinstance(args[0], Unknown) and args[0].spelling:
            args = [EventV(f"opaque:{args[0].spelling}", args[0].spelling), *args[1:]]
        if method in (
            "wait_stream",
            "wait_event",
            "synchronize",
            "record",
            "record_event",
            "wait",
        ) and isinstance(receiver, UnionV):
            # ``for s in streams: s.wait_stream(cur)``: each stream the loop can name waits (or
            # records: ``pool.pop() if pool else Stream()``); ``e.wait(s)`` with e one of several
            # events (a method some classes override).
            synced_before, syncs, made = state.synced, [], []
            for option in receiver.options:
                if isinstance(option, (StreamV, EventV)):
                    found = self._special(call, method, option, callee, args, kwargs, frame, state)
                    if found is not None:
                        syncs.append(found[1].synced != synced_before)
                        state = found[1]
                        made.append(found[0])
            if method == "synchronize" and any(syncs) and not all(syncs):
                # One of several streams (``Stream() if overlap else current_stream()``): the host
                # waits for the producer only where the choice was the producer's stream.
                why = f"`{_spelling(call.func)}()` may synchronize another stream"
                state.maybe_synced = (self._clock, why)
                state.synced = synced_before
            if method == "record_event" and made:
                return join(made), state  # the event, recorded on whichever stream it is
            return UNKNOWN, state
        if method == "use" and isinstance(receiver, StreamV) and not args:
            # cupy: ``stream.use()`` makes the stream the thread's current one until another is
            # used (``set_stream``'s meaning); the producer's kernels run there from then on.
            state.streams = (*state.streams[:-1], receiver)
            state.default_displaced = True
            return receiver, state
        if method == "wait" and isinstance(receiver, StreamV) and args:
            # cuda.core: ``stream.wait(event_or_stream)``.
            method = "wait_stream" if isinstance(args[0], StreamV) else "wait_event"
        if method == "wait_stream" and isinstance(receiver, StreamV) and args:
            producer = args[0]
            if isinstance(producer, StreamV) and producer.key != receiver.key:
                state.joined = state.joined | {(receiver.key, producer.key, now)}
            if self._is_producer(producer, receiver, state.requester):
                state.barriers[receiver.key] = now
                state.gaps.pop(receiver.key, None)
            return UNKNOWN, state
        if method == "wait_event" and isinstance(receiver, StreamV) and args:
            spelled = _spelling(call.args[0]) if call.args else ""
            return UNKNOWN, self._wait_event(receiver, args[0], state, spelled, frame, call.span.line)
        if method == "wait" and isinstance(receiver, EventV):
            waiter = _opaque_stream(args[0]) if args else self._current(frame, state)
            if isinstance(waiter, StreamV):
                spelled = _spelling(call.func.base) if isinstance(call.func, ir.Attr) else ""
                state = self._wait_event(waiter, receiver, state, spelled, frame, call.span.line)
            return UNKNOWN, state
        if method == "record" and isinstance(receiver, EventV):
            stream = _opaque_stream(args[0]) if args else self._current(frame, state)
            state.records[receiver.key] = (stream, now)
            _note_horizon(state, receiver.key, stream)
            state.unrecorded = state.unrecorded - {receiver.key}
            self._note_record(receiver.key, stream)
            return UNKNOWN, state
        if method == "record" and isinstance(receiver, StreamV):
            # cupy: ``stream.record(event=None)`` records the event given, or a new one, on it and
            # returns it
            method = "record_event"
        if method == "record_event" and isinstance(receiver, StreamV):
            event = args[0] if args and isinstance(args[0], EventV) else None
            event = event or EventV(_site(frame, call), f"{receiver.label}.record_event()")
            state.records[event.key] = (receiver, now)
            _note_horizon(state, event.key, receiver)
            state.unrecorded = state.unrecorded - {event.key}
            self._note_record(event.key, receiver)
            return event, state
        if method == "synchronize":
            target = receiver
            device_wide = target is None or isinstance(target, (ExternalV, ModuleV, Unknown))
            if device_wide or (isinstance(target, StreamV) and target.current_of == MAIN_THREAD):
                state.synced = now
            elif isinstance(target, EventV):
                self._host_waited_on(target)
                record = state.records.get(target.key)
                recorded_on = record[0] if record is not None else None
                if (
                    record is not None
                    and recorded_on is not None
                    and (recorded_on.current_of == MAIN_THREAD or self._is_compute_stream(recorded_on))
                ):
                    # Recorded on the producer's stream (current, or one the project runs its
                    # kernels on): the host waited for the producer's work up to the record.
                    state.synced = record[1]
                elif (
                    record is not None
                    and recorded_on is not None
                    and (ordered := state.barriers.get(recorded_on.key)) is not None
                    and ordered <= record[1]
                ):
                    # Recorded on a stream ordered behind the producer (a download stream that
                    # waited for the compute): the producer's work up to that barrier is done.
                    state.synced = ordered if state.synced is None else max(state.synced, ordered)
            elif isinstance(target, StreamV) and self._is_compute_stream(target):
                state.synced = now  # the host waited for the producer's own stream
            elif isinstance(target, StreamV) and target.key in state.barriers:
                # A stream ordered behind the producer: waiting for it waits for the producer's
                # work up to that barrier too.
                ordered = state.barriers[target.key]
                state.synced = ordered if state.synced is None else max(state.synced, ordered)
            self._host_waited(target, state)
            return UNKNOWN, state
        return None

    def _stream_function(
        self,
        dotted: str,
        last: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> Handled:
        """Stream and event constructors, the current and default stream, ``torch.cuda.stream(s)``,
        ``set_stream`` and the driver and runtime barrier functions."""
        if last in HANDLE_WRAPPERS and len(args) == 1 and isinstance(args[0], (StreamV, EventV)):
            return args[0], state  # the same stream or event, as the driver's type
        if last == "create_stream":
            # cuda.core: ``device.create_stream()`` makes a stream; given one (a torch stream,
            # through its ``__cuda_stream__``) it wraps that same stream.
            if args and isinstance(args[0], StreamV):
                return args[0], state
            if not args:
                return StreamV(_made_site(frame, call), _NEW_STREAM), state
        if last == "Stream" or (last == "stream" and not args and "numba" in dotted):
            # numba's ``cuda.stream()`` makes one
            return StreamV(_made_site(frame, call), _NEW_STREAM), state
        made: Value | None = None
        if last in STREAM_CREATORS:
            # cuda-python: ``err, stream = cudart.cudaStreamCreate()``
            made = StreamV(_made_site(frame, call), _NEW_STREAM)
        elif last in EVENT_CREATORS or (last == "event" and "numba" in dotted):
            site = _made_site(frame, call)
            self._note_pooled(frame, site)
            self._note_event_made(frame, site)
            made = EventV(site, f"event created at {site}")
            state.unrecorded = state.unrecorded | {site}
            if last not in EVENT_CREATORS:
                return made, state  # numba's ``cuda.event()``
        if made is not None:
            out = _out_parameter(call.args[0]) if call.args else None
            if out is not None:
                # ctypes: ``lib.cudaEventCreateWithFlags(ctypes.byref(self.handle), flags)``
                # writes the handle through the reference and returns the status.
                return UNKNOWN, self._assign(out, made, frame, state, call)
            return SeqV((ConstV(0, "err", frame.module.path, None), made)), state
        if last in EVENT_RECORDS or last in STREAM_WAITS or last in STREAM_SYNCS or last in EVENT_SYNCS:
            return UNKNOWN, self._function_barrier(last, args, call, frame, state)
        if last in CURRENT_STREAM:
            # Inside ``with torch.cuda.stream(s):`` (cupy: ``with s:``) the current stream is s,
            # not the producer.
            return self._current(frame, state), state
        if last == "default_stream":
            entered = [
                stream
                for stream in state.streams
                if not stream.current_of and not stream.key.startswith("opaque:")
            ]
            if entered:
                # Under a stream the project made, the producer's kernels ran there, unless it
                # is the copy stream itself (decided when the barrier is read).
                return StreamV(f"{_DEFAULT_UNDER}{entered[0].key}", "torch.cuda.default_stream()"), state
            if state.default_displaced:
                return StreamV(f"{_DISPLACED_DEFAULT}{frame.thread}", "torch.cuda.default_stream()"), state
            return self._current(frame, state, explicit=True), state
        if last == "set_stream" and args:
            # ``torch.cuda.set_stream(s)`` replaces the current stream until it is set again
            # (a ``with`` around it restores what it entered with).
            chosen = _opaque_stream(args[0]) or self._current(frame, state, explicit=True)
            state.streams = (*state.streams[:-1], chosen)
            # Setting the thread's own (default) stream again puts the producer back there.
            state.default_displaced = not (chosen.current_of or chosen.key.startswith(_DISPLACED_DEFAULT))
            return UNKNOWN, state
        if last in STREAM_CONTEXTS and args:
            if several_entered := _stream_options(args[0]):
                return UnionV(tuple(ContextV(option) for option in several_entered)), state
            stream = _opaque_stream(args[0])
            return (ContextV(stream) if stream is not None else UNKNOWN), state
        if last == "Event":
            site = _made_site(frame, call)
            self._note_pooled(frame, site)
            self._note_event_made(frame, site)
            state.unrecorded = state.unrecorded | {site}
            return EventV(site, f"event created at {site}"), state
        if last in DEVICE_SYNCS:
            state.synced = self._clock
            self._completed(state, None)
            return UNKNOWN, state
        return None

    def _function_barrier(
        self, name: str, args: tuple[Value, ...], call: ir.Call, frame: Frame, state: PathState
    ) -> PathState:
        """cuda-python's ``cudaEventRecord(e, s)``, ``cudaStreamWaitEvent(s, e, 0)``,
        ``cudaStreamSynchronize(s)``, ``cudaEventSynchronize(e)``, read as their methods are."""

        def event(value: Value) -> Value:
            if isinstance(value, Unknown) and value.spelling:
                return EventV(f"opaque:{value.spelling}", value.spelling)
            return value

        def stream(value: Value) -> Value:
            if _stream_options(value):
                return value  # one of several streams: each waits (``_stream_method``)
            return _opaque_stream(value) or self._current(frame, state)

        at = list(args)
        if name in EVENT_RECORDS and len(at) >= 1:
            event_at, stream_at = EVENT_RECORDS[name]
            given = [stream(at[stream_at])] if len(at) > stream_at else []
            found = self._special(call, "record", event(at[event_at]), UNKNOWN, given, {}, frame, state)
        elif name in STREAM_WAITS and len(at) >= 2:
            stream_at, event_at = STREAM_WAITS[name]
            waiter = stream(at[stream_at])
            found = self._special(
                call, "wait_event", waiter, UNKNOWN, [event(at[event_at])], {}, frame, state
            )
        elif name in STREAM_SYNCS and at:
            found = self._special(call, "synchronize", stream(at[0]), UNKNOWN, [], {}, frame, state)
        elif name in EVENT_SYNCS and at:
            found = self._special(call, "synchronize", event(at[0]), UNKNOWN, [], {}, frame, state)
        else:
            found = None
        return found[1] if found is not None else state


def _note_horizon(state: PathState, event: str, stream: Value | None) -> None:
    """How far the producer's work an event recorded on ``stream`` now covers, where the
    stream is ordered behind the producer (not the producer itself: its own record covers all)."""
    behind = state.ordered_since(stream.key) if isinstance(stream, StreamV) else None
    if behind is None:
        state.horizons.pop(event, None)
    else:
        state.horizons[event] = behind
