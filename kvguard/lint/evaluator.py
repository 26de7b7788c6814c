"""The evaluator of the abstract interpreter: how the project's lowered code is read.

Functions run with their arguments bound; statements run along every path (branches, loops,
``with`` blocks, generators), and paths merge where they join; expressions evaluate to the
abstract values of ``kvguard.lint.values``; calls go to project code or, for the APIs the
analysis models, to the handlers in ``kvguard.lint.handlers``. It keeps the bookkeeping the
handlers share: copy launches, stream barriers and events, writes and host reads.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple, TypeAlias

from kvguard.lint import ir
from kvguard.lint.api import (
    ALLOCATORS,
    ARRAY_ADDRESSES,
    ARRAY_METADATA,
    COPY_APIS,
    CUPY_MODULES,
    CUPY_NON_COMPUTING,
    CURRENT_STREAM,
    DEVICE_ALLOCATORS,
    DRIVER_ENTRY_POINTS,
    ENUM_TYPES,
    EXIT_STACK,
    GRAPH_LAUNCHES,
    GRAPH_REPLAYS,
    GRAPH_TYPE,
    HOST_ONLY_MODULES,
    LIKE_ALLOCATORS,
    LOCATION_HINTS,
    MODEL_FORWARD,
    ORDER_KEYWORDS,
    ORDER_SPELLINGS,
    ORDER_STRINGS,
    ORDERING_METHODS,
    PINNED_ALLOCATORS,
    SAME_MEMORY_METHODS,
    STREAM_HANDLES,
)
from kvguard.lint.config import AnalysisSettings
from kvguard.lint.dependencies import IMPORTS, NAME, NotingDict
from kvguard.lint.devices import accelerator_params
from kvguard.lint.facts import ORDER_STREAM, Memory, SourceOrder
from kvguard.lint.findings import FlowStep, Span
from kvguard.lint.pathstate import (
    BEFORE_PATH,
    EARLIER_CALL,
    MAX_SPLITS,
    Branch,
    Frame,
    ModuleEntry,
    PathState,
    Put,
    ThreadStart,
    merge_or_end,
    merge_paths,
)
from kvguard.lint.reading import (
    _DEFAULT_UNDER,
    _DISPLACED_DEFAULT,
    _LEFT_PENDING,
    _NEW_STREAM,
    _UNPLACED,
    _UNRESOLVED,
    BUILTIN_METHODS,
    EMPTIED,
    TRUTH_PREFIX,
    UNPLACED_QUEUE,
    _accepts,
    _buffer_site,
    _callee_name,
    _carries_handle,
    _comparison_tested,
    _declares_only,
    _device_api,
    _device_memory,
    _element,
    _fields_assigned,
    _fields_given,
    _flag_tested,
    _forget_fields,
    _hands_out_a_field,
    _has_none_branch,
    _holds_something,
    _index,
    _is_classmethod,
    _is_none,
    _is_property,
    _is_static,
    _iterated_names,
    _keyed_spelling,
    _label_streams,
    _local_name,
    _made_site,
    _merge_names,
    _narrowed,
    _opaque_call,
    _opaque_stream,
    _opens_paths,
    _orders_anything,
    _orders_something,
    _placement_tested,
    _read_spelling,
    _root_expr,
    _root_spelling,
    _small_range,
    _spelling,
    _stream_context,
    _streams_differ,
    _taught,
    _the,
    _truth,
    _unpack_starred,
    _wait_if_set,
    _waits_on_each,
    calls_in,
    dict_key,
    spelt_key,
)
from kvguard.lint.results import MAIN_THREAD, CopyRun, HostRead, PendingCopy, entry_step
from kvguard.lint.values import (
    SENTINEL,
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
    MethodV,
    ModuleV,
    ObjectV,
    QueueGetV,
    QueueV,
    RecordV,
    SeqV,
    StreamEntry,
    StreamV,
    TensorV,
    UnionV,
    Unknown,
    Value,
    buffer_key,
    host_elements,
    join,
    memory_of,
    options,
    taint,
    view_of,
)

# Calls followed from one entry point; past it, calls are left opaque. Offload paths take a
# few dozen; the budget keeps one sprawling entry point from taking the run's time.
_CALLS_PER_ROOT = 600
# Waits that cover every stream (a device synchronize, an event's, one on an unknown target).
_ANY_STREAM = "<any stream>"
# Written by code the analysis does not see, which may write any buffer (a generator's caller).
ANY_BUFFER = "<any buffer>"
# Written or read by a generator's caller between its resumptions: any buffer that caller can
# reach, which a buffer the project allocated is not taken to be (its uses are the project's).
_CALLER_BETWEEN_RESUMPTIONS = "<a generator's caller's buffers>"
# Operators that merge, join or repeat Python containers (``a | b``, ``a + b``, ``[x] * n``).
_CONTAINER_OPERATORS = frozenset({"+", "|", "*", "&", "^", "-"})
# A buffer a function allocates on one path and takes from somewhere unknown on another.
_OR_REUSED = " or one reused"
# Where a value was computed on this path, by the name it was bound to (``Evaluator._note_made``).
_MADE_ON = "made on stream: "
# Kept among a path's writes: when it last launched work the code does not show (a graph
# replay, a model call) on a stream the project made, by that stream.
_LAUNCHED_ON = "launched on stream: "
_MAX_DEPTH = 12
_RUNS_PER_THREAD_FUNCTION = 8
# A method called on an unplaced object runs in each project class that defines it, up to
# this many (beyond, the name is too common to tell which).
_MAX_OVERRIDES = 4
# What a field guessed by name holds that a read of it uses.
_HANDLES = (TensorV, StreamV, EventV, QueueV)
# ``range(n)`` with a constant n up to this is read as its elements (two streams in turn).
_SPELT_RANGE = 8
# Builtins whose results the analysis reads (a dict display is lowered to a ``dict`` call).
_PYTHON_BUILTINS = frozenset(dir(builtins))
_BUILTINS = frozenset({"int", "getattr", "zip", "list", "tuple", "len", "dict", "vars", "isinstance"})


# What an API handler gives for a call it models; None for one it leaves to the others.
Handled: TypeAlias = tuple[Value, PathState] | None


class Reportable(NamedTuple):
    """Counts of what an entry point's run may report from (see ``Evaluator._reportable``)."""

    recordable_copies: int
    handoffs: int
    threads: int
    inherited_copies: int
    host_reads: int

    def reports_since(self, before: Reportable) -> bool:
        """Whether a run between ``before`` and this may report: it reached a copy the
        reporting pass records, a hand-off or a thread start, or copies inherited from an
        earlier call where it read buffers on the host (a read may come before the copy in a
        loop's body, which the reporting pass runs twice)."""
        inherited_read = (
            self.inherited_copies != before.inherited_copies and self.host_reads != before.host_reads
        )
        return self[:3] != before[:3] or inherited_read


class Evaluator:
    """How the project's lowered code is read: functions with their arguments bound, statements
    along every path, expressions to abstract values, calls dispatched to project code or to
    the API handlers, and the bookkeeping of copies, streams and host reads."""

    def __init__(
        self,
        modules: Iterable[ModuleEntry],
        taught: AnalysisSettings | None = None,
        project_modules: frozenset[str] = frozenset(),
    ) -> None:
        """``project_modules``: the names of every Python module of the project, read or not."""
        self._taught = taught or AnalysisSettings()
        self._modules = {m.name: m for m in modules}
        self._packages = frozenset(name.split(".")[0] for name in self._modules)
        # Every module of the project and every package above one (``pkg`` and ``pkg.sub``).
        self._project_modules = frozenset(
            ".".join(parts[:end])
            for name in project_modules | frozenset(self._modules)
            for parts in (name.split("."),)
            for end in range(1, len(parts) + 1)
        )
        # Looked up through dicts that note what the runs consult (kvguard.lint.dependencies),
        # with the module-level units they read (a name's binding, the imports, the body).
        self._functions: NotingDict[tuple[str, str], ir.Function] = NotingDict()
        self._classes: NotingDict[tuple[str, str], ir.Class] = NotingDict()
        self._units_read: set[tuple[str, str]] = set()
        for module in self._modules.values():
            for function in module.code.functions:
                self._functions[(module.name, function.qualname)] = function
            for cls in module.code.classes:
                self._classes[(module.name, cls.qualname)] = cls
        # Parameters the code itself hands to an API that takes only an accelerator's device.
        self._accelerator_params: dict[tuple[str, str], frozenset[str]] = {
            (module.name, qualname): names
            for module in self._modules.values()
            for qualname, names in accelerator_params(module.code.functions, module.code.imports).items()
        }
        # Which methods assign each field (module, class, field), read off their code: a field
        # one of them assigns is unknown where that method never ran.
        self._field_writers: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
        for (module_name, qualname), function in self._functions.items():
            if function.class_name and function.params:
                holder = function.params[0].name
                for field_name in _fields_assigned(function.body, holder):
                    key = (module_name, function.class_name, field_name)
                    self._field_writers.setdefault(key, set()).add((module_name, qualname))
        # Field names the project gives a value anywhere (read off the code when first asked).
        self._given_fields: set[str] | None = None
        # The classes that give each field name a value: an unplaced object's field is read
        # from them when few do (``ctx.lengths`` where one class of the project has ``lengths``).
        self._field_owners: dict[str, set[tuple[str, str]]] = {}
        # Classes whose methods assign fields of their instance.
        self._mutating_classes = {(module, cls) for module, cls, _ in self._field_writers}
        for module_name, class_name, field_name in self._field_writers:
            self._field_owners.setdefault(field_name, set()).add((module_name, class_name))
        # A record type (dataclass, NamedTuple) that declares the field owns it too: its value
        # is whatever each record was made with.
        for (module_name, class_name), info in self._classes.items():
            for field_name in info.fields:
                if field_name in self._field_owners:
                    self._field_owners[field_name].add((module_name, class_name))
        # A class that answers the name with a method or property owns it too: its value is
        # not one of the assigned fields (``obj.tensor`` of a class whose ``tensor`` is a property).
        for (module_name, _), function in self._functions.items():
            if function.class_name and function.name in self._field_owners:
                self._field_owners[function.name].add((module_name, function.class_name))
        self._uses: dict[int, tuple[set[str], set[str]]] = {}
        # Functions defined inside another function (closures), by the function they are in.
        self._nested_in: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for module_name, qualname in sorted(self._functions):
            parent = (module_name, qualname.rpartition(".")[0])
            if parent in self._functions:
                self._nested_in.setdefault(parent, []).append((module_name, qualname))
        self._nested = {key for inner in self._nested_in.values() for key in inner}
        # Names of functions passed as values (callbacks, executor tasks, thread targets):
        # they may run on a thread the analysis does not see.
        self._passed: set[str] = set()
        self._names_called: set[str] = set()  # every name some project function calls
        self._names_called_at_top: set[str] = set()  # and module code
        self._splits = 0  # branches now running the rest of their block on their own
        # Calls a ``for`` loop iterates now (``for x in gen(...)``, ``enumerate(gen(...))``):
        # a generator called there is resumed by code the analysis runs, its loop body.
        self._looped_calls: set[int] = set()
        # Whether each function (by id: the code outlives the run) is a raw copy's thin wrapper.
        self._raw_copy_wrappers: dict[int, bool] = {}
        # Streams the host waits for somewhere in the project (any path, any pass);
        # _ANY_STREAM for a wait that may cover any stream (the device, an event).
        self._waited_somewhere: set[str] = set()
        # Fields set on records of a type after they were made: (type, field).
        self._record_fields_set: set[tuple[str, str]] = set()
        self._syncs_somewhere = False  # some function of the project names a host wait
        self._relevant: set[tuple[str, str]] = set()
        self._levels: dict[tuple[str, str], int] = {}  # calls above a seed, of each relevant one
        self._reach: set[tuple[str, str]] = set()
        self._reach_classes: set[tuple[str, str]] = set()
        self._relevant_classes: set[tuple[str, str]] = set()
        self._host_readers: set[tuple[str, str]] = set()
        self._relevance()
        self._heap: dict[tuple[str, str, str], list[Value]] = {}
        # The fields each holder (module, class or class@site) was given, for code that is
        # handed the whole object.
        self._fields_of: dict[tuple[str, str], set[str]] = {}
        # The wrapper the project's decorators make of each function (``Evaluator._wrapper``).
        self._wrappers: dict[tuple[str, str], Value | None] = {}
        # The modules defining each class name (read when a record's method is called).
        self._class_modules: dict[str, list[str]] | None = None
        self._methods_found: dict[tuple[str, str, str], tuple[str, str] | None] = {}
        # Constructions whose effects can be replayed, by what they depend on
        # (``_construction_memo``), with the heap keys they read and when those last changed.
        self._constructions: dict[tuple[object, ...], _Construction] = {}
        self._heap_version = 0
        self._heap_versions: dict[tuple[str, str, str], int] = {}
        self._instances: dict[ObjectV, None] = {}  # in the order made (a set, looked up often)
        self._constant_values: dict[tuple[str, str], Value] = {}
        self._bases: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._puts: dict[str, list[Put]] = {}
        self._threads: list[ThreadStart] = []
        # Buffers allocated by the entry point now running (a destination no kernel has read).
        self._fresh: set[str] = set()
        self._unwritten: set[str] = set()  # fresh buffers no kernel filled (``empty``)
        self._methods_by_name: dict[str, list[tuple[str, str, bool]]] | None = None
        self._inert_methods: dict[str, list[tuple[str, str]]] | None = None
        # By (method name, the call's shape, the class left out): the classes it may run in.
        self._override_owners: dict[
            tuple[str, tuple[bool, int, tuple[str, ...]] | None, tuple[str, str] | None],
            list[tuple[str, str]],
        ] = {}
        # Buffers and events made for one of several alike objects (a double buffer's pairs),
        # and whether the host waits on such an event (a protocol per object, which the
        # analysis does not follow object by object).
        self._pooled: set[str] = set()
        self._pooled_waited = False
        # The entry point running now, and those that took from a queue nothing had been put
        # on yet (by the queue): threads, which run after the entry points, may fill it.
        self._running_root: tuple[str, str] = ("", "")
        # The entry points that make each event (by its site) on the requesting thread.
        self._events_made_by: dict[str, set[tuple[str, str]]] = {}
        # Per event the producer records, the buffers an entry point's kernels used after the
        # event's last record in a call (a slot's release recorded before the kernel reading it).
        self._used_after_record: dict[str, set[tuple[str, str]]] = {}
        # Spellings of values the code also hands to an API that takes only an accelerator's
        # device (``Stream(device=self.device)``): memory placed there is device memory.
        self._accelerator_devices: set[str] = set()
        self._starved: dict[tuple[str, str], set[str]] = {}
        self._properties_by_name: dict[str, list[tuple[str, str]]] | None = None
        self._field_setters: dict[tuple[str, str], bool] = {}
        self._functions_by_name: dict[str, list[tuple[str, str]]] | None = None
        self._callees: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._closure_names_of: dict[tuple[str, str], set[str]] = {}
        # Names of the project's ``async def`` functions: only a call by one of them can be
        # a coroutine call that runs nothing unless awaited.
        self._async_names = {function.name for function in self._functions.values() if function.is_async}
        # Fields each instance under construction has been given so far in this construction.
        # Per object being constructed, each field's latest value and the branch arms (and
        # loop bodies) it was assigned in.
        self._constructing: dict[ObjectV, dict[str, tuple[Value, tuple[tuple[int, bool], ...]]]] = {}
        # The arms of the ``if`` statements (``(id, taken)``) and the loop bodies being run.
        self._arms: tuple[tuple[int, bool], ...] = ()
        # How many except branches the running code is inside: what they assign is an
        # alternative to what the failed block assigned, not its replacement.
        self._in_except = 0
        # Streams copies were issued on: the rest of the streams the project makes compute.
        self._copy_streams: set[str] = set()
        # Streams kernels ran on (an in-place op, an element store, a call the project does not
        # show writing a buffer): where a stream that also copies is still a producer.
        self._kernel_streams: set[str] = set()
        self._copied_into_on: set[str] = set()  # streams copies wrote possibly-GPU memory on
        self._entered: set[tuple[str, str]] = set()
        # Streams a method call of an object leaves ordered behind the producer after its last
        # copy on them, by the object's class; and streams some call leaves with a copy after
        # its last barrier. A stream only ever left ordered is ordered when the next call of
        # the object starts (the barrier the previous call took at its end).
        self._left_ordered: dict[tuple[str, str], set[str]] = {}
        # Buffers entry points return to their callers outside the project (by identity).
        self._handed_to_callers: set[str] = set()
        # The streams each class keeps in its fields.
        self._field_streams: dict[tuple[str, str], set[str]] = {}
        self._left_unordered: set[str] = set()
        # Asynchronous copies into host buffers that a method call of an object, run as an
        # entry point, left unfinished, by the object's class.
        self._left_pending: dict[tuple[str, str], dict[str, PendingCopy]] = {}
        # The streams each event is recorded on, wherever (any pass, any path) the analysis saw
        # a record: waiting on one recorded nowhere is no barrier.
        self._recorded_on: dict[str, set[str]] = {}
        self._recorded_by_methods: dict[str, set[str]] = {}  # the same, outside constructors
        self._entered_by_root: set[str] = set()  # functions the running entry point entered
        # Per class, where its methods make a stream field wait for the current stream, by
        # (field, method).
        self._waits_by_field: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
        self._constructors_running = 0
        # Functions entered this pass through a resolved call, a thread start or a ``with``.
        self._called: set[tuple[str, str]] = set()
        self._called_in_order: list[tuple[str, str]] = []  # the same, as they were first called
        # Entry points whose collecting run reached a copy (or started with one an earlier call
        # left unfinished) or handed work on, and how many of each the analysis has seen.
        self._effective: set[tuple[str, str]] = set()
        self._copies_reached = 0
        # Copies the reporting pass would record, or whose destination a host read may report
        # (not those of a fallback root on a stream it cannot resolve into device memory): an
        # entry point that reached none cannot report.
        self._recordable_copies = 0
        self._host_reads_seen = 0  # reads on the host of a buffer a copy may still be writing
        self._handoffs_reached = 0  # puts on queues
        self._inherited_copies = 0  # copies entry points started with, left by earlier calls
        # Fields and globals (heap keys) read by the entry point now running; for each entry
        # point run while collecting, when it started (its number), what it read and how many
        # instances it ran for; and when each heap key last changed (the entry point's number).
        self._heap_reads: set[tuple[str, str, str]] = set()
        self._root_runs = 0
        # Per entry point of the collecting pass: when it ran, the heap keys it read, how many
        # instances it ran on, and the functions it called first.
        self._collected: dict[
            tuple[str, str], tuple[int, set[tuple[str, str, str]], int, list[tuple[str, str]]]
        ] = {}
        self._heap_changed: dict[tuple[str, str, str], int] = {}
        # The subclasses' definitions of each abstract method called on an unplaced object.
        self._stub_overrides: dict[tuple[tuple[str, str], str], list[tuple[str, str, tuple[str, str]]]] = {}
        self._clock = 0
        # The names of the project's classes that other project classes derive from.
        self._derived: set[str] | None = None
        self._budget = _CALLS_PER_ROOT
        self._reporting = False
        self._fallback = False
        self.runs: list[CopyRun] = []
        self.host_reads: list[HostRead] = []
        self.failed: list[str] = []

    def _invoke(
        self,
        func: FuncV,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        state: PathState,
        caller: Frame,
        call: ir.Call | None,
    ) -> tuple[Value, PathState]:
        key = (func.module, func.qualname)
        function = self._functions.get(key)
        if function is None or caller.depth >= _MAX_DEPTH or func.qualname in caller.stack:
            return UNKNOWN, state
        if func.keywords:  # ``partial(helper, src_order=ANY)(...)``: the call's own keywords win
            given = {name for name, _ in kwargs}
            kwargs = (*((name, value) for name, value in func.keywords if name not in given), *kwargs)
        wrapper = None if func.undecorated or not function.decorators else self._wrapper(func, function)
        if wrapper is not None:
            # ``@run_on_stream("copy")``: the wrapper the project's decorator made runs, and calls
            # the function itself where it does (inside its stream context, after its wait).
            receiver = (func.bound,) if func.bound is not None else ()
            site = call or _definition_site(function)
            if receiver and isinstance(site.func, ir.Attr):
                # The wrapper takes the object first: ``obj.f(x)`` is ``wrapper(obj, x)``.
                site = replace(site, args=(site.func.base, *site.args))
            return self._dispatch(wrapper, (*receiver, *func.partial, *args), kwargs, site, caller, state)
        this = func.bound
        if this is None and func.undecorated and function.class_name and args:
            this = args[0]  # a decorated method, called by its decorator's wrapper with self
        holder = (this.module, this.qualname) if isinstance(this, ObjectV) else None
        caller_self = caller.env.get("self")
        if (
            not func.undecorated  # its decorator's wrapper, given the object, is no method of it
            and isinstance(caller_self, ObjectV)
            and (caller_self.module, caller_self.qualname) == holder
        ):
            # A method the object's own method calls: its end is not the end of the object's
            # call, and at its start the stream is as the calling method has it.
            holder = None
        if holder is not None and holder not in state.carried and function.name != "__init__":
            # The object's first call on this path: an earlier call of it (the previous step)
            # may have left copies unfinished (``propose()`` starts a copy into a field,
            # ``get()`` reads it; a module-level singleton's ``check()`` reads what its previous
            # call copied).
            earlier = {
                key: replace(copy, earlier_call=True)
                for key, copy in self._left_pending.get(holder, {}).items()
                if key not in state.pending
            }
            self._heap_reads.add((holder[0], holder[1], _LEFT_PENDING))
            if earlier:
                state.pending = {**state.pending, **earlier}
                self._inherited_copies += len(earlier)
            state.carried = state.carried | {holder}
        elif holder is not None:
            state.carried = state.carried | {holder}
        self._budget -= 1
        if self._budget < 0:
            return taint([*args, *(v for _, v in kwargs)]), state  # this root has had its share
        if (
            key not in self._reach
            and not state.streams
            # An unfinished copy into host memory: it may read the buffer (``float(x.sum())``).
            and not state.pending
            and caller.thread == MAIN_THREAD
            # A getter or accessor is cheap and may hand out a field that matters.
            and not _is_property(function)
            and not (len(function.body) == 1 and isinstance(function.body[0], ir.Return))
            and not _hands_out_a_field(function)
            # A helper handed a stream or event may hand it back (``_ok(cuStreamCreate())``);
            # one handed a driver entry point calls it (``call(cu.cuStreamCreate, flags)``).
            and not any(
                _carries_handle(value) or _names_driver_entry_point(value)
                for value in (*args, *(v for _, v in kwargs))
            )
            # One handed a function that matters may keep it for later (``register_hook(fn)``),
            # or call it (a decorator's wrapper, closed over it).
            and not any(
                isinstance(value, FuncV) and (value.module, value.qualname) in self._reach
                for value in (*args, *(v for _, v in kwargs), *(v for _, v in func.closure))
            )
            # A constructor of a class whose methods matter sets the fields they read; one given
            # a buffer keeps it (``MemoryObj(raw, meta)``), for whoever reads the field.
            and not (
                function.name == "__init__"
                and (
                    (func.module, function.class_name) in self._reach_classes
                    or any(memory_of(value) is not None for value in (*args, *(v for _, v in kwargs)))
                )
            )
            # So does any other method of such a class that sets a field of its object
            # (``swap_in`` taking buffers from a pool that ``swap_out`` copies into).
            and not ((func.module, function.class_name) in self._reach_classes and self._sets_own_fields(key))
            # And a method of any class that keeps a buffer it is given (a holder's
            # ``store((k, v))``): the path reads that buffer back there.
            and not (
                any(memory_of(value) is not None for value in (*args, *(v for _, v in kwargs)))
                and self._sets_own_fields(key)
            )
        ):
            # It names nothing that matters, and no side stream or copy thread runs it.
            return taint([*args, *(v for _, v in kwargs)]), state
        self._entered.add(key)
        self._entered_by_root.add(func.qualname)
        if call is not None or caller.thread != MAIN_THREAD:
            self._note_called(key)
        module = self._modules[func.module]
        flow = caller.flow
        if call is not None:
            flow = self._flow_to(
                caller,
                FlowStep(caller.module.path, call.span.line, call.span.column, f"calls {function.qualname}"),
            )
        env = self._bind(function, func.bound, args, kwargs, module, caller, call)
        if func.closure:
            env = {**dict(func.closure), **env}
        thread = caller.thread
        if thread == MAIN_THREAD and _taught(
            f"{func.module}.{func.qualname}", self._taught.copy_thread_functions
        ):
            thread = f"copy thread running {function.qualname} (configured)"
        frame = Frame(module, env, thread, flow, caller.depth + 1, (*caller.stack, func.qualname))
        frame.resumed_by_loop = call is not None and id(call) in self._looped_calls
        frame.global_names = function.global_names
        frame.several = caller.several
        if call is not None and any(isinstance(value, CopyApiV) for value in args):
            frame.copy_site = caller.copy_site or (caller.module.path, call)
        elif call is not None and self._wraps_a_raw_copy(function):
            frame.copy_site = caller.copy_site or (caller.module.path, call)
            frame.wraps_copy = True
        if call is not None:
            frame.aliases = self._aliases(function, func.bound, call, caller)
        started = self._clock
        handed = (
            set(_held_buffer_keys(SeqV((*args, *(v for _, v in kwargs)))))
            if holder is not None and state.pending
            else set()
        )
        bound_at_entry = dict(env)
        entered_on = state.streams
        constructor = function.name == "__init__"
        self._constructors_running += constructor
        try:
            state = self._block(function.body, frame, state)
        finally:
            self._constructors_running -= constructor
        if call is not None and not call.star_args:
            self._fields_set_through_parameters(function, func.bound, bound_at_entry, frame, call, caller)
        ends = [*frame.exits, *([] if state.returned else [state])]
        if holder is not None:
            # Each way out on its own: one that issued no copy on a stream leaves it as it was.
            for end in ends or [state]:
                self._note_exit(holder, end, started)
                # What a call of the object left unfinished, for its other methods that code
                # outside the project calls later (a ``save()`` after ``update()``): the copies
                # it started, and those into buffers its caller handed it (``submit(payload)``),
                # not every copy its caller had running.
                started_here = {
                    key: copy for key, copy in end.pending.items() if copy.time >= started or key in handed
                }
                if started_here:
                    left = self._left_pending.setdefault(holder, {})
                    if not started_here.keys() <= left.keys():
                        self._changed((holder[0], holder[1], _LEFT_PENDING))
                    left.update(started_here)
        state = merge_paths(ends, [None] * len(ends)) if ends else state
        state.returned = False
        if len(frame.returns) == len(ends) == len(frame.exits) > 1:
            _keep_returned_streams_ordered(state, frame.exits, frame.returns)
        if call is not None:
            # A callee that ``set_stream``s and returns without restoring installs that stream
            # as the thread's current one (vLLM's ``current_stream()`` on its first call): the
            # caller's later work, its producer's kernels included, runs there.
            state.streams = entered_on
        if frame.yielded and not frame.returns:
            # A generator: what iterating it gives (``list(self._pairs(pages))``).
            return SeqV(tuple(frame.yielded[:8])), state
        returned = join(frame.returns) if frame.returns else UNKNOWN
        if any(isinstance(option, Unknown) for value in frame.returns for option in options(value)):
            # ``return bucket.pop() if bucket else torch.empty(...)``: fresh on one path only; on
            # the other a buffer some earlier use left, which kernels may still read.
            returned = self._maybe_reused(returned)
        return returned, state

    def _call_lambda(
        self,
        function: LambdaV,
        args: tuple[Value, ...],
        state: PathState,
        caller: Frame,
        call: ir.Call | None,
    ) -> tuple[Value, PathState]:
        """A lambda's body, over the names it closed over and its arguments."""
        if caller.depth >= _MAX_DEPTH:
            return UNKNOWN, state
        env = dict(function.closure)
        env.update(zip(function.params, args, strict=False))
        flow = caller.flow
        if call is not None:
            flow = self._flow_to(
                caller, FlowStep(caller.module.path, call.span.line, call.span.column, "calls a lambda")
            )
        module = self._modules[function.module]
        frame = Frame(module, env, caller.thread, flow, caller.depth + 1, caller.stack)
        return self._eval(function.body, frame, state)

    def _fields_set_through_parameters(
        self,
        function: ir.Function,
        bound: Value | None,
        given: dict[str, Value],
        frame: Frame,
        call: ir.Call,
        caller: Frame,
    ) -> None:
        """A struct the caller passed by name and the callee filled field by field
        (``set_order(attrs, 3)`` doing ``attrs.srcAccessOrder = order``): the caller's
        variable now has those fields."""
        params = [p for p in function.params if not p.star]
        if bound is not None and params and not _is_static(function):
            params = params[1:]
        by_keyword = {name: arg for name, arg in call.kwargs}
        passed = [
            *zip(params, call.args, strict=False),
            *((p, by_keyword[p.name]) for p in params if p.name in by_keyword),
        ]
        for param, arg in passed:
            filled = frame.env.get(param.name)
            if filled is given.get(param.name):
                continue
            if isinstance(arg, ir.Name) and isinstance(filled, RecordV):
                caller.env[arg.id] = filled
            elif (
                isinstance(given.get(param.name), TensorV) and filled is not None and _only_addresses(filled)
            ):
                # ``fill_pointers(ids, table[a:b], cache)`` doing ``output[:] = base + ids * stride``.
                table = _view_base(arg)
                if isinstance(caller.env.get(table), TensorV):
                    _fill_table(caller, table, filled)

    def _note_exit(self, holder: tuple[str, str], state: PathState, started: int) -> None:
        """How a method call leaves each stream it issued copies on: ordered behind the producer
        after its last copy (the object's next call finds it ordered), or not."""
        owned = self._field_streams.get(holder, set())
        for stream, issued in state.issued.items():
            if issued < started or stream not in owned:
                continue  # issued before this call, or on a stream another object holds
            if state.left_ordered(stream):  # a wait on the producer, or a host sync
                self._left_ordered.setdefault(holder, set()).add(stream)
            else:
                self._left_unordered.add(stream)

    def _aliases(
        self, function: ir.Function, bound: Value | None, call: ir.Call, caller: Frame
    ) -> dict[str, str]:
        """Which caller buffer each parameter names, for buffers known only by their spelling."""
        if call.star_args:
            return {}
        params = [p for p in function.params if not p.star]
        if bound is not None and params and not _is_static(function):
            params = params[1:]
        pairs = list(zip((p.name for p in params), call.args, strict=False)) + list(call.kwargs)
        aliases = {}
        for name, expr in pairs:
            if isinstance(expr, (ir.Name, ir.Attr)):
                identity = self._identity(UNKNOWN, expr, caller)
                if identity:
                    aliases[name] = identity
        return aliases

    def _bind(
        self,
        function: ir.Function,
        bound: Value | None,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        module: ModuleEntry,
        caller: Frame,
        call: ir.Call | None = None,
    ) -> dict[str, Value]:
        env: dict[str, Value] = {}
        params = list(function.params)
        positional = list(args)
        if bound is not None and params and not _is_static(function):
            env[params[0].name] = bound
            params = params[1:]
        given = dict(kwargs)
        default_frame = Frame(module, {}, caller.thread, caller.flow, caller.depth, caller.stack)
        for param in params:
            if param.star == "*":
                env[param.name] = SeqV(tuple(positional))
                positional = []
            elif param.star == "**":
                # The keywords no named parameter takes, as the dict a wrapper passes on
                # (``fn(*args, **kwargs)``).
                named = {p.name for p in params if not p.star}
                env[param.name] = RecordV("dict", tuple((k, v) for k, v in kwargs if k not in named))
            elif positional:
                env[param.name] = positional.pop(0)
            elif param.name in given:
                env[param.name] = given[param.name]
            elif param.default is not None:
                value = self._eval(param.default, default_frame, PathState())[0]
                if isinstance(value, ConstV) and not value.origin:
                    value = replace(
                        value,
                        origin=f"the default of parameter '{param.name}'",
                        # With *args or **kwargs at the call, the argument may come from them.
                        defaulted_at=(
                            (caller.module.path, call.span, param.name)
                            if call and not call.star_args
                            else None
                        ),
                    )
                if call is None and caller.depth == 0 and isinstance(value, ConstV) and value.value is None:
                    # An entry point's caller is not in the project: it may pass the optional
                    # argument, and the branches on it run. (A True/False default is left as
                    # it is: such flags often state what the caller guarantees, ``sync=False``.)
                    value = join([value, Unknown(param.name)])
                elif (
                    call is None
                    and caller.depth == 0
                    and function.name == "__init__"
                    and isinstance(value, ConstV)
                ):
                    # A constructor's setting, where code outside the project constructs it:
                    # configuration its users set. A flag either way (``enable_iter_perf_stats=
                    # False``); another constant (``load_mode="layer_first"``) it or another value.
                    value = (
                        Unknown(param.name) if isinstance(value.value, bool) else _or_given(value, param.name)
                    )
                env[param.name] = value
            else:
                instance = self._annotated_instance(param, default_frame)
                env[param.name] = instance or Unknown(
                    param.name, from_caller=self._fallback and caller.depth == 0
                )
        accelerator = self._accelerator_params.get((module.name, function.qualname), frozenset())
        for name in accelerator:
            passed = env.get(name)
            if isinstance(passed, Unknown):
                # No caller in the project says which device, but the code makes a CUDA stream
                # (or the like) on it: an accelerator's. So is what the caller passed, wherever
                # else it places memory (``self.device`` from a configuration).
                env[name] = ConstV("cuda", name, module.path, None)
                if passed.spelling:
                    self._accelerator_devices.add(passed.spelling)
        return env

    def _own_extension(self, dotted: str) -> bool:
        """A function of a module under one of the project's packages that is not one of its
        Python files (a compiled extension it builds)."""
        module, _, _ = dotted.rpartition(".")
        if not module or module.split(".")[0] not in self._packages:
            return False
        return module not in self._project_modules

    def _as_device(self, value: Value | None) -> Value | None:
        """A device value, an accelerator's where the code also makes a stream on it."""
        if isinstance(value, Unknown) and value.spelling in self._accelerator_devices:
            return ConstV("cuda", value.spelling, "", None)
        return value

    def _given_anywhere(self, field: str) -> bool:
        """Whether the project gives a field of this name a value anywhere (``meta.ready_event =
        done``, ``Meta(ready_event=done)``): a wait skipped where it is unset may have run."""
        if self._given_fields is None:
            self._given_fields = set()
            for module in self._modules.values():
                self._given_fields |= _fields_given(module.code.body)
                for function in module.code.functions:
                    self._given_fields |= _fields_given(function.body)
        return field in self._given_fields

    def _annotated_instance(self, param: ir.Param, frame: Frame) -> ObjectV | RecordV | None:
        """``env: ExecutionEnv`` with no argument given, of a project class the project never
        constructs: an instance made outside, its fields as the constructor sets them (a
        record's, as its defaults give them). Not a class the project derives from (a
        subclass's object may be passed), nor one it constructs (the argument may be one of
        those instances or another)."""
        if param.annotation is None:
            return None
        cls = self._eval(param.annotation, frame, PathState())[0]
        if not isinstance(cls, ClassV):
            return None
        key = (cls.module, cls.qualname)
        info = self._classes[key]
        has_init = self._method(cls.module, cls.qualname, "__init__") is not None
        record = not has_init and bool(info.fields) and key not in self._mutating_classes
        if not has_init and not record:
            return None
        if self._derived is None:
            self._derived = {
                _spelling(base).rsplit(".", 1)[-1] for info in self._classes.values() for base in info.bases
            }
        name = cls.qualname.rsplit(".", 1)[-1]
        if name in self._derived or name in self._names_called or name in self._names_called_at_top:
            return None
        if record:
            defining = Frame(
                self._modules[cls.module], {}, frame.thread, frame.flow, frame.depth, frame.stack
            )
            return self._record_made_outside(info, param.name, defining)
        return ObjectV(cls.module, cls.qualname, alias=param.name)

    def _record_made_outside(self, info: ir.Class, param: str, defining: Frame, depth: int = 0) -> RecordV:
        """A record the caller outside the project made: configuration its users set. A field's
        constant default (evaluated where the class is defined) is its value or another the
        maker gave (a mode's other branch runs too; an order it spells still reaches the copy);
        a True/False default may be either; a field typed with a record of the project's is one
        made outside too (or None, where that is its default); any other field is what the
        maker gave."""
        defaults = dict(info.defaults)
        types = dict(info.field_types)
        fields: list[tuple[str, Value]] = []
        for field_name in info.fields:
            given: Value = Unknown(f"{param}.{field_name}")
            default = defaults.get(field_name)
            value = self._eval(default, defining, PathState())[0] if default is not None else UNKNOWN
            record = self._record_type(types.get(field_name), defining) if depth < 2 else None
            if record is not None:
                at = Frame(self._modules[record[0]], {}, defining.thread, defining.flow, defining.depth, ())
                given = self._record_made_outside(record[1], f"{param}.{field_name}", at, depth + 1)
            if isinstance(value, ConstV) and not isinstance(value.value, bool):
                value = (
                    join([value, given]) if record is not None else _or_given(value, f"{param}.{field_name}")
                )
            else:
                value = given
            fields.append((field_name, value))
        return RecordV(info.qualname, tuple(fields))

    def _record_type(self, annotation: ir.Expr | None, frame: Frame) -> tuple[str, ir.Class] | None:
        """The project's record class (a dataclass or named tuple without a constructor of its
        own) an annotation names, with its module."""
        if annotation is None:
            return None
        cls = self._eval(annotation, frame, PathState())[0]
        if not isinstance(cls, ClassV):
            return None
        info = self._classes.get((cls.module, cls.qualname))
        if info is None or not info.fields or self._method(cls.module, cls.qualname, "__init__") is not None:
            return None
        return cls.module, info

    def _block(self, statements: Sequence[ir.Stmt], frame: Frame, state: PathState) -> PathState:
        for index, statement in enumerate(statements):
            self._clock += 1
            if isinstance(statement, ir.Assign) and self._chooses_a_stream(statement, frame):
                # ``stream = side if overlap else compute`` runs as the ``if`` it is, so that
                # each path keeps its stream (and a later test of the same flag its branch).
                assert isinstance(statement.value, ir.Cond)
                choice = statement.value
                statement = ir.If(
                    choice.test,
                    (replace(statement, value=choice.then),),
                    (replace(statement, value=choice.orelse),),
                    statement.span,
                    True,
                )
            if isinstance(statement, ir.Assign):
                value, state = self._eval(statement.value, frame, state)
                if isinstance(value, QueueGetV):
                    return self._after_get(statement, value, statements[index + 1 :], frame, state)
                for target in statement.targets:
                    state = self._assign(target, value, frame, state, statement)
                continue
            if isinstance(statement, ir.If):
                before = frame.env  # _if_paths gives each branch its own copy
                state, finished = self._after_if(
                    before, self._if_paths(statement, frame, state), statements[index + 1 :], frame, statement
                )
                if finished:
                    return state
            elif isinstance(statement, ir.With):
                before = frame.env
                ways = self._with_ways(statement, statement.items, frame, state)
                if len(ways) == 1:
                    state = ways[0].state
                else:
                    # On one of several streams: as an ``if`` over which, each way may run the
                    # rest of the block on its own (an event recorded in the block names that
                    # stream, and a later wait on it must find it).
                    state, finished = self._after_if(before, ways, statements[index + 1 :], frame, statement)
                    if finished:
                        return state
            else:
                state = self._statement(statement, frame, state)
            if state.returned:
                break
        return state

    def _chooses_a_stream(self, statement: ir.Assign, frame: Frame) -> bool:
        """A name bound to one of two streams or events on a test the code does not decide."""
        choice = statement.value
        if not isinstance(choice, ir.Cond) or len(statement.targets) != 1:
            return False
        if not isinstance(statement.targets[0], ir.Name):
            return False
        if _truth(self._peek(choice.test, frame)) is not None:
            return False
        branches = (self._peek(choice.then, frame), self._peek(choice.orelse, frame))
        return all(_orders_anything(value) for value in branches) and branches[0] != branches[1]

    def _statement(self, statement: ir.Stmt, frame: Frame, state: PathState) -> PathState:
        if isinstance(statement, ir.AugAssign):
            added, state = self._eval(statement.value, frame, state)
            target = statement.target
            if isinstance(target, ir.Name) and isinstance(frame.env.get(target.id), SeqV):
                # ``ptrs += helper(...)`` grows a list: it holds what it is given too.
                if memory_of(added) is not None:
                    frame.env[target.id] = join([frame.env[target.id], taint([added])])
                return state
            return self._write(target, frame, state, statement.span)
        if isinstance(statement, ir.Eval):
            if not statement.awaited and self._coroutine_call(statement.value, frame, state):
                return state  # ``self.barrier()`` of an ``async def`` without ``await``: never runs
            return self._eval(statement.value, frame, state)[1]
        if isinstance(statement, ir.Return):
            if statement.value is not None:
                value, state = self._eval(statement.value, frame, state)
                frame.returns.append(value)
            state.returned = True
            leaving = state.copy()
            leaving.returned = False  # it goes on at the caller, merged with the other exits
            frame.exits.append(leaving)
            return state
        if isinstance(statement, ir.Raise):
            if statement.value is not None:
                state = self._eval(statement.value, frame, state)[1]
            if frame.raised:
                frame.raised[-1].append(state.copy())  # to the handlers of the ``try`` around it
            # The path leaves the function by the exception: it does not go on at the caller
            # (where every path raises, the caller goes on as if the call returned).
            state.returned = True
            return state
        if isinstance(statement, ir.Jump):
            if frame.loops:
                # The path goes on after the loop, or at its next turn: the rest of the body
                # does not run on it.
                leaving = state.copy()
                leaving.returned = False
                frame.loops[-1][0 if statement.leaves else 1].append(leaving)
                state.returned = True
            return state
        if isinstance(statement, ir.Yield):
            yielded: Value = UNKNOWN
            if statement.value is not None:
                yielded, state = self._eval(statement.value, frame, state)
            if frame.on_yield is not None:
                return frame.on_yield(state, yielded, statement.span)
            if yielded not in frame.yielded:
                frame.yielded.append(yielded)
            if frame.thread == MAIN_THREAD and not frame.resumed_by_loop:
                # A generator resumed by its caller (``next(layers)`` once per layer): between
                # the yield and the resumption the caller's kernels run and may write, or read,
                # any buffer. Not where a loop the analysis runs resumes it: its body is that
                # work.
                state.writes[_CALLER_BETWEEN_RESUMPTIONS] = (
                    self._clock,
                    statement.span.line,
                    self._running_on(frame, state),
                )
            return state
        if isinstance(statement, ir.If):
            before = frame.env
            return self._after_if(before, self._if_paths(statement, frame, state), (), frame, statement)[0]
        if isinstance(statement, ir.Loop):
            return self._loop(statement, frame, state)
        if isinstance(statement, ir.With):
            return self._with(statement, statement.items, frame, state)
        if isinstance(statement, ir.Try):
            frame.raised.append([])
            try:
                state = self._block(statement.body, frame, state)
            finally:
                raised = frame.raised.pop()
            if statement.handlers:
                ends = [state]
                # A handler runs where the body raised: anywhere in it, or at a ``raise``.
                caught = merge_paths([state, *raised], [None] * (len(raised) + 1)) if raised else state
                self._in_except += 1
                try:
                    ends += [self._block(h, frame, caught.copy()) for h in statement.handlers]
                finally:
                    self._in_except -= 1
                steps = [self._step(frame, statement.span, "path without an exception")] + [
                    self._step(frame, statement.span, "an except branch") for _ in statement.handlers
                ]
                state = merge_paths(ends, steps)
            state = self._block(statement.orelse, frame, state)
            return self._block(statement.final, frame, state)
        return state

    def _if_paths(self, statement: ir.If, frame: Frame, state: PathState) -> list[Branch]:
        """The paths through an ``if``: each one's state, names, and the step that names it."""
        test, state = self._eval(statement.test, frame, state)
        truth = _truth(test)
        if truth is None:
            truth = _known_truth(statement.test, frame.env)  # an earlier ``if`` on it decided it
        if truth is not None:
            state = self._block(statement.body if truth else statement.orelse, frame, state)
            return [Branch(state, frame.env, None)]
        line = statement.span.line
        taken, other = state.copy(), state.copy()
        queried = self._queried(statement.test, frame, state)
        if queried is not None:
            # ``if event.query():`` — the branch where it returned True has waited for it.
            self._host_waited(queried[0], other if queried[1] else taken)
        compared = _comparison_tested(statement.test, frame.comparisons)
        if compared is not None:
            # ``if stream != current: stream.wait_stream(current)``: on the path where the two
            # streams are one, each is ordered behind the other as it is behind itself.
            same = taken if not compared.negated else other
            # Read as they run (``other.handle == self.handle`` goes through properties), on a
            # copy of the state: the test itself issues nothing.
            left, _ = self._eval(compared.left, frame, state.copy())
            right, _ = self._eval(compared.right, frame, state.copy())
            for waiter, producer in ((left, right), (right, left)):
                if (
                    isinstance(waiter, StreamV)
                    and isinstance(producer, StreamV)
                    and waiter.key != producer.key
                    and self._is_producer(producer, waiter, state.requester)
                ):
                    same.barriers[waiter.key] = self._clock
                    same.gaps.pop(waiter.key, None)
        entry_names = frame.env  # each branch runs on its own copy
        frame.env = dict(entry_names)
        _note_truth(statement.test, True, frame.env)
        synced_before = state.synced
        placed = _placement_tested(statement.test)
        if placed is not None and not placed[2]:
            self._place(placed[0], placed[1], frame)
        elif isinstance(statement.test, ir.Opaque) and statement.test.conjunction:
            # ``if dst.device.type == "cpu" and src.is_cuda:`` places both in the body.
            for part in statement.test.parts:
                if (both := _placement_tested(part)) is not None and not both[2]:
                    self._place(both[0], both[1], frame)
        narrowed = _narrowed(statement.test, frame.env)
        arms, self._arms = self._arms, (*self._arms, (id(statement), True))
        if narrowed is None:
            taken = self._block(statement.body, frame, taken)
        else:
            # ``if batch:`` — in the body the collection holds something (``[]`` and ``None``
            # are the other branch's), so a loop over it runs.
            name, before, inside = narrowed
            frame.env[name] = inside
            taken = self._block(statement.body, frame, taken)
            if frame.env.get(name) is inside:
                frame.env[name] = before
        self._arms = arms
        taken_env = frame.env
        frame.env = dict(entry_names)
        _note_truth(statement.test, False, frame.env)
        flag = _flag_tested(statement.test, frame.env)
        if flag:
            # ``if background:`` with a flag the code computes: each path knows its value, so
            # a later test of it takes the same branch (the rest of a split block runs per path).
            if taken_env.get(flag) is entry_names[flag]:  # not bound anew in the body
                taken_env[flag] = ConstV(True, flag, frame.module.path, None)
            frame.env[flag] = ConstV(False, flag, frame.module.path, None)
        if placed is not None and placed[2]:
            self._place(placed[0], placed[1], frame)
        self._arms = (*arms, (id(statement), False))
        emptied, when_taken = self._emptied_by(statement.test, frame)
        other_label = (
            f"else branch of the if at line {line}"
            if statement.has_else
            else (f"path where the if at line {line} is not taken")
        )
        if len(statement.orelse) == 1 and isinstance(statement.orelse[0], ir.If):
            # ``elif``: each of its paths is a path of this ``if``, so that what each chose
            # (a stream, say) goes on with it rather than merged at the end of the ``else``.
            others = self._if_paths(statement.orelse[0], frame, other)
        else:
            other = self._block(statement.orelse, frame, other)
            others = [Branch(other, frame.env, self._step(frame, statement.span, other_label))]
        self._arms = arms
        waited, who_waits = _wait_if_set(statement)
        if "." in waited and not self._given_anywhere(waited.rsplit(".", 1)[1]):
            who_waits = ""  # a field the project never sets: the wait never runs
        skipped = (
            f"the wait on `{waited}` at line {line} is skipped only where `{waited}` is unset, where "
            "by the code's account nothing was pending"
        )
        for branch in others:
            if (
                who_waits == "host"
                and taken.synced not in (None, synced_before)
                and branch.state.synced is None
            ):
                branch.state.maybe_synced = (taken.synced or 0, skipped)
            if who_waits == "host":
                # Copies the wait finished, left running only where it is skipped.
                for key, copy in list(branch.state.pending.items()):
                    if key in state.pending and key not in taken.pending and not copy.maybe_waited:
                        branch.state.pending[key] = replace(copy, maybe_waited=skipped)
            if who_waits == "stream":
                for key, time in taken.barriers.items():
                    if time != state.barriers.get(key) and branch.state.ordered_since(key) is None:
                        branch.state.maybe_ordered[key] = (time, skipped)
        if not when_taken and emptied and len(others) == 1:
            others = [replace(others[0], emptied=emptied)]
        return [
            Branch(
                taken,
                taken_env,
                self._step(frame, statement.span, f"if branch at line {line}"),
                emptied if when_taken else "",
            ),
            *others,
        ]

    def _place(self, tensor: ir.Expr, memory: Memory, frame: Frame) -> None:
        """On a branch where a test of where ``tensor`` lives holds, it lives there."""
        name = _local_name(tensor)
        value = self._peek(tensor, frame) if name else None
        if isinstance(value, TensorV):
            frame.env[name] = replace(value, memory=memory)
        elif isinstance(value, Unknown):
            frame.env[name] = TensorV(memory)

    def _emptied_by(self, test: ir.Expr, frame: Frame) -> tuple[str, bool]:
        """For ``if xs:`` or ``if not xs:`` over a name or a field that holds a collection (or
        None) as far as the code shows: its spelling, and whether the path where the test
        holds is the one where it is empty. ("", False) for any other test."""
        negated = isinstance(test, ir.Not)
        tested = test.operand if isinstance(test, ir.Not) else test
        spelling = _local_name(tested)
        if not spelling:
            return "", False
        held = options(self._peek(tested, frame))
        if not all(isinstance(o, (Unknown, SeqV)) or _is_none(o) is True for o in held):
            return "", False  # a tensor, a stream, an object: its truth says nothing of a loop
        return spelling, negated

    def _after_if(
        self,
        before: dict[str, Value],
        paths: list[Branch],
        rest: Sequence[ir.Stmt],
        frame: Frame,
        statement: ir.If | ir.With,
    ) -> tuple[PathState, bool]:
        """Where the paths of an ``if`` join, given the names before it: (the state, whether
        ``rest`` ran already). Paths that bind a stream or event differently (``stream = side
        if overlap else current``) each run the rest of the block on their own, so that a
        barrier taken on one path is not paired with the stream the other path chose."""
        live = [path for path in paths if not path.state.returned]
        emptied = {path.emptied for path in live if path.emptied}
        iterated = emptied & _iterated_names(rest) if emptied else set()
        # Events one branch recorded and another did not: on the other, the event still
        # marks an earlier record (a previous call's), which orders none of this call's work.
        # Not one the branch makes on first use (``if ev is None: ev = Event()``): where the
        # branch is not taken, no call made it unless the branch ran before, under a test
        # that is often the configuration's, the same on every call.
        recorded = {
            key
            for path in live
            for key in path.state.records
            if not _made_within(key, frame.module.path, statement.span)
        }
        skipped = [recorded - path.state.records.keys() for path in live]
        streams_differ = any(_streams_differ(live[0].env, path.env) for path in live[1:]) or any(
            _recorded_elsewhere(live[0].state, path.state) for path in live[1:]
        )
        split = (
            len(live) > 1
            and rest
            and self._splits < MAX_SPLITS
            and (
                streams_differ
                or bool(iterated)
                or any(_truths_differ(live[0].env, path.env, _tested_spellings(rest)) for path in live[1:])
                or any(skipped)
            )
        )
        if not split:
            frame.env = self._reused_on_some_path(_merge_names(before, paths), paths)
            return merge_paths([p.state for p in paths], [p.step for p in paths]), False
        ends, envs = [], []
        self._splits += 1
        try:
            for path in paths:
                frame.env = dict(path.env)
                if path.emptied in iterated:
                    frame.env[path.emptied] = EMPTIED
                if not path.state.returned:
                    path.state.unrecorded = path.state.unrecorded | (recorded - path.state.records.keys())
                ends.append(path.state if path.state.returned else self._block(rest, frame, path.state))
                envs.append(Branch(ends[-1], frame.env, path.step))
        finally:
            self._splits -= 1
        frame.env = self._reused_on_some_path(_merge_names(before, envs), envs)
        return merge_paths(ends, [p.step for p in paths]), True

    def _reused_on_some_path(self, merged: dict[str, Value], paths: Sequence[Branch]) -> dict[str, Value]:
        """``buf = pool.pop() if pool else torch.empty(n)`` as an ``if``: a buffer allocated on
        one path and one the code does not show on another is not fresh after them."""
        live = [path.env for path in paths if not path.state.returned]
        for name, value in merged.items():
            # Only these can hold a fresh buffer (the cheap test first: this runs at every join).
            if isinstance(value, (TensorV, SeqV)) and any(
                isinstance(held := env.get(name), Unknown)
                # ``dst = pool.acquire(n) if pool else torch.empty(n)``, where the pool hands out
                # a fresh buffer or a reused one: the last path's buffer stands for both.
                or (isinstance(held, TensorV) and held.key.endswith(_OR_REUSED))
                for env in live
            ):
                merged[name] = self._maybe_reused(value)
        return merged

    def _maybe_reused(self, value: Value) -> Value:
        """A value whose fresh buffers (itself, or in the tuple it is) may be reused ones."""
        if isinstance(value, TensorV) and value.key in self._fresh:
            return replace(value, key=f"{value.key}{_OR_REUSED}")
        if (
            isinstance(value, SeqV)
            and len(value.items) <= _SPELT_RANGE
            and not any(isinstance(item, ConstV) and item.value is None for item in value.items)
        ):
            # (A tuple with a None beside the buffer, ``(torch.empty(n), None)``, tells the
            # fresh path apart: what comes with a reused buffer, its release event, orders it.)
            return SeqV(tuple(self._maybe_reused(item) for item in value.items))
        return value

    def _loop(self, statement: ir.Loop, frame: Frame, state: PathState) -> PathState:
        looped = {id(call) for call in _iterated_calls(statement.iter)}
        self._looped_calls |= looped
        try:
            iterated, state = self._eval(statement.iter, frame, state)
        finally:
            self._looped_calls -= looped
        iterated = self._members(iterated)
        if iterated is EMPTIED or (
            statement.target is not None and _known_truth(statement.iter, frame.env) is False
        ):
            # No turn on this path (``if plan.offloads or plan.onboards:`` was false: both empty).
            return self._block(statement.orelse, frame, state)
        if statement.target is not None and (
            _spelt_pairs(iterated)
            or _spelt_rows(statement)
            or _given_rows(statement, iterated)
            or _few_handles(iterated)
            or _spelt_items(statement, iterated)
            or _named_fields(statement, iterated)
        ):
            assert isinstance(iterated, SeqV)
            return self._block(statement.orelse, frame, self._each_pair(statement, iterated, frame, state))
        element = _element(iterated)
        if statement.target is not None:
            state = self._assign(statement.target, element, frame, state, statement)
        # ``while True:`` ends only where its body breaks out (or returns).
        forever = statement.target is None and _truth(iterated) is True
        if not self._reporting:  # collecting fields and hand-offs: one turn is enough
            last, broke = self._turn(statement, frame, state.copy())
            ends = [*broke] if forever else [state, last, *broke]
            return self._block(statement.orelse, frame, merge_or_end(ends, last))
        # The first turn starts from the state before the loop; a second sees what the end of
        # the body leaves for the next iteration. Each is its own path: merging their entries
        # would pair one path's writes with the other's barriers.
        first, broke = self._turn(statement, frame, state.copy())
        if statement.target is not None:
            _forget_fields(frame.env, statement.target)  # the next turn's element is another
        last = first
        if not first.returned:
            last, broke_later = self._turn(statement, frame, first.copy())
            broke = broke + broke_later
        # Over a sequence the code spells out (``*streams`` given two streams) the body runs.
        # So it does over a collection of events or streams: one that is empty holds no work
        # to wait for, so the path that skips the body waits for nothing either.
        runs_once = _holds_something(iterated) or _orders_something(element) or _waits_on_each(statement)
        if forever:
            state = merge_or_end(broke, last)
        else:
            state = merge_or_end([last, *broke] if runs_once else [state, last, *broke], last)
        queried = self._queried(statement.iter, frame, state) if statement.target is None else None
        if queried is not None and queried[1]:
            self._host_waited(queried[0], state)  # ``while not event.query(): ...`` ends once it is done
        return self._block(statement.orelse, frame, state)

    def _each_pair(self, statement: ir.Loop, pairs: SeqV, frame: Frame, state: PathState) -> PathState:
        """A loop over a dict the code spells (``for name, value in fields.items()``), or over
        a few rows or events it is given: a turn per entry, in order, each with its own."""
        assert statement.target is not None
        broke: list[PathState] = []
        for pair in pairs.items:
            state = self._assign(statement.target, pair, frame, state, statement)
            state, broke_here = self._turn(statement, frame, state)
            broke += broke_here
            if state.returned:
                break
        return merge_or_end([state, *broke], state)

    def _turn(self, statement: ir.Loop, frame: Frame, start: PathState) -> tuple[PathState, list[PathState]]:
        """One run of a loop's body: the state its turn ends in (continues included) and the
        states of the paths that broke out."""
        frame.loops.append(([], []))
        arms, self._arms = self._arms, (*self._arms, (id(statement), True))
        try:
            end = self._block(statement.body, frame, start)
        finally:
            broke, continued = frame.loops.pop()
            self._arms = arms
        if continued:
            end = merge_or_end([end, *continued], end)
        return end, broke

    def _with(
        self,
        statement: ir.With,
        items: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: Frame,
        state: PathState,
    ) -> PathState:
        before = frame.env
        ways = self._with_ways(statement, items, frame, state)
        if len(ways) == 1:
            return ways[0].state
        frame.env = _merge_names(before, ways)
        return merge_paths([way.state for way in ways], [None] * len(ways))

    def _with_ways(
        self,
        statement: ir.With,
        items: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: Frame,
        state: PathState,
    ) -> list[Branch]:
        """Where a ``with`` leaves the state: one way, or one per stream where it enters one of
        several (``streams[i % 2]``)."""
        if not items:
            return self._body_ways(statement, frame, state)
        (context_expr, name), rest = items[0], items[1:]
        context, state = self._eval(context_expr, frame, state)
        if (
            isinstance(context_expr, ir.Call)
            and isinstance(context_expr.func, ir.Attr)
            and context_expr.func.name == "auto_synchronize"
        ):
            # numba: ``with stream.auto_synchronize():`` synchronizes the stream as it ends.
            stream, state = self._eval(context_expr.func.base, frame, state)
            state = self._with(statement, rest, frame, state)
            synchronized = self._special(context_expr, "synchronize", stream, UNKNOWN, [], {}, frame, state)
            return [Branch(synchronized[1] if synchronized is not None else state, frame.env, None)]
        if isinstance(context, UnionV) and all(_stream_context(option) for option in context.options):
            return self._on_each_stream(statement, context, items[0], rest, frame, state)
        return self._with_context(statement, context, context_expr, name, rest, frame, state)

    def _body_ways(self, statement: ir.With, frame: Frame, state: PathState) -> list[Branch]:
        """A ``with`` block's ways out: one, or one per path of an ``if`` that ends it and binds
        a stream or an event differently on each (``ready = None`` on one path, an event
        recorded on the other): the code after the block runs on each path on its own."""
        body = statement.body
        last = body[-1] if body else None
        if not isinstance(last, ir.If) or self._splits >= MAX_SPLITS:
            return [Branch(self._block(body, frame, state), frame.env, None)]
        state = self._block(body[:-1], frame, state)
        if state.returned:
            return [Branch(state, frame.env, None)]
        before = frame.env
        paths = self._if_paths(last, frame, state)
        live = [path for path in paths if not path.state.returned]
        if len(live) > 1 and any(_streams_differ(live[0].env, path.env) for path in live[1:]):
            return paths
        frame.env = before
        return [Branch(self._after_if(before, paths, (), frame, last)[0], frame.env, None)]

    def _on_each_stream(
        self,
        statement: ir.With,
        context: UnionV,
        item: tuple[ir.Expr, ir.Expr | None],
        rest: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: Frame,
        state: PathState,
    ) -> list[Branch]:
        """A ``with`` on one of several streams: its block run on each, each way with its own
        names."""
        context_expr, name = item
        before = frame.env
        paths = []
        for option in context.options:
            frame.env = dict(before)
            entered = ContextV(option) if isinstance(option, StreamV) else option
            paths += self._with_context(statement, entered, context_expr, name, rest, frame, state.copy())
        frame.env = before
        return paths

    def _with_context(
        self,
        statement: ir.With,
        context: Value,
        context_expr: ir.Expr,
        name: ir.Expr | None,
        rest: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: Frame,
        state: PathState,
    ) -> list[Branch]:
        stream = _stream_context(context)
        if stream is not None:
            if name is not None:
                state = self._assign(name, stream, frame, state, statement)
            saved = state.streams
            spelled, unspelt = self._plain_stream_spelling(context_expr, statement, saved, frame)
            self._units_read.add((frame.module.name, IMPORTS))
            api = _device_api(context_expr, frame.module.code.imports)
            if spelled and not api[0]:
                spelled = ""
                unspelt = (
                    "the block's device module is chosen when it runs (by a call with arguments), "
                    "so a barrier cannot spell that module's current stream"
                )
            entered = StreamEntry(frame.module.path, statement.span, spelled, api, frame.stack, unspelt)
            if frame.thread == MAIN_THREAD and state.ordered_since(stream.key) is None:
                # The first block of this path to enter the stream unordered: a barrier before
                # it also orders the later blocks on the stream (see ``_barrier_site``).
                state.unordered_entries.setdefault(stream.key, (entered, self._clock))
            state.streams = (*saved, replace(stream, entered_at=entered))
            ways = self._with_ways(statement, rest, frame, state)
            for way in ways:
                way.state.streams = saved
            return ways
        if isinstance(context, GeneratorContextV):
            state = self._enter_generator(context, statement, name, rest, frame, state)
            return [Branch(state, frame.env, None)]
        enter = exit_ = None
        if isinstance(context, ObjectV):
            enter = self._method(context.module, context.qualname, "__enter__")
            exit_ = self._method(context.module, context.qualname, "__exit__")
        if enter is not None:
            # A project class used as a context (``with StreamSwitch(s):``): its ``__enter__``
            # runs before the block (a ``set_stream`` there holds in it), its ``__exit__`` after.
            entered_value, state = self._invoke(
                FuncV(enter[0], enter[1], context), (), (), state, frame, None
            )
            if name is not None:
                state = self._assign(name, entered_value, frame, state, statement)
            state = self._with(statement, rest, frame, state)
            if exit_ is not None:
                nothing = ConstV(None, "None", frame.module.path, None)
                _, state = self._invoke(
                    FuncV(exit_[0], exit_[1], context), (nothing, nothing, nothing), (), state, frame, None
                )
            return [Branch(state, frame.env, None)]
        if name is not None:
            state = self._assign(name, context, frame, state, statement)
        if isinstance(context, ExternalV) and context.dotted.endswith(EXIT_STACK):
            # The contexts the stack entered exit with its block: the streams they made current.
            saved = state.streams
            state = self._with(statement, rest, frame, state)
            state.streams = saved
            return [Branch(state, frame.env, None)]
        return self._with_ways(statement, rest, frame, state)

    def _plain_stream_spelling(
        self, context_expr: ir.Expr, statement: ir.With, enclosing: tuple[StreamV, ...], frame: Frame
    ) -> tuple[str, str]:
        """How a barrier placed before ``statement`` can name the stream it enters; or "" and
        why no barrier placed there would be right: another side stream is current there, an
        earlier item of the same ``with`` binds the stream, or naming it again could run code
        (a property, a call)."""
        if not isinstance(context_expr, ir.Call) or not context_expr.args:
            return "", (
                f"the `with` names `{_spelling(context_expr)}`, not a stream call whose argument a "
                "barrier could name"
            )
        if statement.items[0][0] is not context_expr:
            return "", "an earlier item of the same `with` makes the stream"
        if any(s.current_of != MAIN_THREAD for s in enclosing):
            return "", (
                "the block is inside another stream block, where `current_stream()` is that "
                "side stream, not the compute stream"
            )
        spelled = context_expr.args[0]
        if isinstance(spelled, ir.Name):
            return spelled.id, ""
        if isinstance(spelled, ir.Attr) and isinstance(spelled.base, ir.Name):
            holder = frame.env.get(spelled.base.id)
            if (
                isinstance(holder, ObjectV)
                and self._method(holder.module, holder.qualname, spelled.name) is None
            ):
                # A field of a project object, not a property; one that may hold None (no stream
                # on this device) would make a barrier on it fail.
                stored = self._stored((holder.module, holder.qualname, spelled.name))
                if any(_is_none(value) for value in stored):
                    return "", f"`{_spelling(spelled)}` may be None (no stream on some devices)"
                return _spelling(spelled), ""
        return "", (
            f"the stream is spelt `{_spelling(spelled)}`, which a barrier would evaluate again "
            "(a property, a call or an index may give another stream)"
        )

    def _enter_generator(
        self,
        context: GeneratorContextV,
        statement: ir.With,
        name: ir.Expr | None,
        rest: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: Frame,
        state: PathState,
    ) -> PathState:
        func = context.function
        function = self._functions[(func.module, func.qualname)]
        module = self._modules[func.module]
        step = FlowStep(
            frame.module.path, statement.span.line, statement.span.column, f"enters {function.qualname}"
        )
        inner = Frame(
            module,
            dict(context.arguments),
            frame.thread,
            self._flow_to(frame, step),
            frame.depth + 1,
            (*frame.stack, func.qualname),
        )
        entered = False

        def body(at_yield: PathState, yielded: Value, _: Span) -> PathState:
            nonlocal entered
            entered = True
            outer_streams = at_yield.streams
            if name is not None:
                at_yield = self._assign(name, yielded, frame, at_yield, statement)
            result = self._with(statement, rest, frame, at_yield)
            result.streams = outer_streams
            return result

        inner.on_yield = body
        self._entered.add((func.module, func.qualname))
        self._note_called((func.module, func.qualname))
        state = self._block(function.body, inner, state)
        return state if entered else self._with(statement, rest, frame, state)

    def _after_get(
        self,
        statement: ir.Assign,
        queue: QueueGetV,
        rest: Sequence[ir.Stmt],
        frame: Frame,
        state: PathState,
    ) -> PathState:
        """``item = q.get()``: the rest of the block runs once per payload put on the queue,
        in the state the putter left (its barriers), with the putter's path."""
        puts = self._puts.get(queue.queue.key, [])
        if "@" not in queue.queue.key:
            # The queue of an instance the analysis does not place stands for any instance's
            # queue made there: what every one of them was given.
            puts = [
                put
                for key, made in self._puts.items()
                if key.split("@")[0] == queue.queue.key
                for put in made
            ]
        if all(_is_none(put.payload) is True for put in puts):
            # Nothing in the project puts work on this queue (a stop sentinel at most): draining
            # it takes what the project puts on queues handed in from outside, which outside
            # code wires to it (a drain that runs before those puts runs again after them).
            outside = self._puts.get(UNPLACED_QUEUE, [])
            if not outside and frame.thread == MAIN_THREAD:
                self._starved.setdefault(self._running_root, set()).add(UNPLACED_QUEUE)
            puts = [*puts, *outside]
        if not puts:
            if frame.thread == MAIN_THREAD:
                self._starved.setdefault(self._running_root, set()).add(queue.queue.key.split("@")[0])
            for target in statement.targets:
                state = self._assign(target, UNKNOWN, frame, state, statement)
            return self._block(rest, frame, state)
        getter = frame.stack[-1] if frame.stack else ""
        owner = getter.rpartition(".")[0]
        setup = [put for put in puts if put.putter.endswith(".__init__") and not put.state.pending]
        given_back = [
            put
            for put in puts
            if owner
            and put.putter.rpartition(".")[0] == owner
            and put.thread == frame.thread
            and not put.state.pending
            and all(isinstance(option, (ConstV, Unknown)) for option in options(put.payload))
        ]
        if all(put in setup or put in given_back or put.putter == getter for put in puts):
            # A free list (slots the constructor put, given back by the function that takes
            # them, or a slot number another method of its class gives back on this thread):
            # taking one hands over no work, so this path goes on in its own state.
            for target in statement.targets:
                state = self._assign(target, join([put.payload for put in puts]), frame, state, statement)
            return self._block(rest, frame, state)
        # Each way the block goes on: what it takes, the state and path it goes on in, its step.
        ways: list[tuple[Value, PathState, tuple[FlowStep, ...], FlowStep | None]] = []
        if setup:
            # Slots the constructor put hand over no work: with one of them this path goes on
            # in its own state (what ``release(buf)`` puts back, a user may still be reading).
            ways.append((join([put.payload for put in setup]), state.copy(), frame.flow, None))
        for put in [put for put in puts if put not in setup]:  # the block may put on the queue too
            put_at = put.flow[-1]
            step = FlowStep(
                frame.module.path,
                statement.span.line,
                statement.span.column,
                f"taken off {queue.queue.label} (put at {put_at.path}:{put_at.line}) by {_the(frame.thread)}",
            )
            branch = put.state.copy()
            branch.streams = state.streams
            if put.thread not in (MAIN_THREAD, frame.thread):
                branch.requester = put.thread  # the job that put it handed this work over
            ways.append((put.payload, branch, (*put.flow, step), step))
        ends: list[PathState] = []
        for taken, branch, flow, _ in ways:
            variant = replace(frame, env=dict(frame.env), flow=flow)
            for target in statement.targets:
                branch = self._assign(target, taken, variant, branch, statement)
            ends.append(self._block(rest, variant, branch))
            frame.env.update(variant.env)
        return merge_paths(ends, [step for *_, step in ways])

    def _assign(
        self, target: ir.Expr, value: Value, frame: Frame, state: PathState, statement: object
    ) -> PathState:
        if (
            isinstance(value, StreamV)
            and value.label == _NEW_STREAM
            and isinstance(target, (ir.Name, ir.Attr))
        ):
            value = replace(value, label=_spelling(target))  # reports name a stream by where it is kept
        elif isinstance(target, ir.Attr) and isinstance(value, (StreamV, UnionV)):
            # A field over a helper's local name (``self._copy = _ck(cuStreamCreate(...))``).
            value = _named_by_field(value, _spelling(target))
        elif isinstance(target, ir.Attr) and isinstance(value, (SeqV, RecordV)):
            value = _label_streams(value, _spelling(target))  # ``self.streams[1]``, ``self._streams['load']``
        if isinstance(target, (ir.Name, ir.Attr)):
            frame.env.pop(f"{TRUTH_PREFIX}{_spelling(target)}", None)  # what an ``if`` learnt of it is old
            if isinstance(statement, ir.Assign) and statement.targets == (target,):
                self._note_made(target, statement, value, frame, state)
        if isinstance(target, ir.Name):
            if isinstance(statement, ir.Assign) and isinstance(statement.value, ir.Equals):
                frame.comparisons[target.id] = statement.value
            else:
                frame.comparisons.pop(target.id, None)
            view = (
                statement.value
                if isinstance(statement, ir.Assign) and statement.targets == (target,)
                else None
            )
            unkeyed = isinstance(value, Unknown) or (isinstance(value, TensorV) and not value.key)
            if unkeyed and _is_view(view):
                # ``part = self.host[k][rows]``: a name for part of a buffer known by its spelling.
                frame.aliases[target.id] = self._identity(UNKNOWN, view, frame)
            else:
                frame.aliases.pop(target.id, None)
            base = _view_base(view) if view is not None else ""
            if (
                base
                and base != target.id
                and isinstance(value, TensorV)
                and isinstance(frame.env.get(base), TensorV)
            ):
                frame.views[target.id] = base
            else:
                frame.views.pop(target.id, None)
            if target.id in frame.global_names:
                self._remember((frame.module.name, "<globals>", target.id), value)
            if frame.env.get(target.id) is not value:
                _forget_fields(frame.env, target)
            frame.env[target.id] = value
        elif isinstance(target, ir.Attr):
            holder, state = self._eval(target.base, frame, state)
            for option in options(holder):
                if isinstance(option, RecordV) and option.type_name:
                    # Set on some record of its type (``obj.meta.ready_event = done``): a record
                    # of that type made without it may hold it since.
                    self._record_fields_set.add((option.type_name, target.name))
            if isinstance(holder, ObjectV):
                # In one construction a later assignment replaces an earlier one for this
                # instance (``super().__init__()`` sets it, the subclass sets it again) where
                # every path through the earlier one reaches it: not one in another arm of an
                # ``if`` (``if overlap: self.s = {...} else: self.s = {...}``) or under a test
                # or in a loop the earlier one was not.
                chain = self._constructing.get(holder)
                if chain is not None and not self._in_except:
                    earlier, earlier_arms = chain.get(target.name, (None, ()))
                    follows = earlier_arms[: len(self._arms)] == self._arms
                    if earlier is not None and holder.site and follows:
                        key = _field_key(holder, target.name)
                        values = self._stored(key)
                        if earlier in values and earlier != value:
                            values.remove(earlier)
                            self._changed(key)
                    chain[target.name] = (value, self._arms)
                self._remember_field(holder, target.name, value)
                if isinstance(statement, ir.Assign) and _has_none_branch(statement.value):
                    # ``self.stream = Stream() if on_cuda else None``: the field may hold None.
                    self._remember_field(holder, target.name, ConstV(None, "None", frame.module.path, None))
                if isinstance(target.base, ir.Name):  # later reads in this function see this value
                    frame.env[f"{target.base.id}.{target.name}"] = value
            elif isinstance(holder, ClassV):
                self._remember((holder.module, holder.qualname, target.name), value)
            elif isinstance(target.base, ir.Name):
                frame.env[f"{target.base.id}.{target.name}"] = value
                if isinstance(holder, (RecordV, Unknown, ExternalV)):
                    # A local struct filled field by field (``attrs.srcAccessOrder = ...``).
                    frame.env[target.base.id] = _with_field(holder, target.name, value)
            elif (
                isinstance(target.base, ir.Attr)
                and target.base.name in LOCATION_HINTS
                and isinstance(target.base.base, ir.Name)
                and isinstance(struct := frame.env.get(target.base.base.id), (RecordV, Unknown, ExternalV))
            ):
                # ``attrs.srcLocHint.type = HOST`` in a local struct: the hint it hands a copy.
                hint = struct.get(target.base.name) if isinstance(struct, RecordV) else None
                filled = _with_field(hint or UNKNOWN, target.name, value)
                frame.env[target.base.base.id] = _with_field(struct, target.base.name, filled)
            elif (
                isinstance(target.base, ir.Attr)
                and isinstance(target.base.base, ir.Name)
                and isinstance(owner := frame.env.get(target.base.base.id), ObjectV)
                and isinstance(holder, (RecordV, ExternalV))
                and target.name in ORDER_KEYWORDS
            ):
                # ``self.attrs.srcAccessOrder = order`` on a struct the object keeps: what its
                # other methods hand to a copy carries that order.
                self._remember_field(owner, target.base.name, _with_field(holder, target.name, value))
            elif (
                isinstance(target.base, ir.Index)
                and isinstance(target.base.base, ir.Name)
                and isinstance(holder, (RecordV, Unknown, ExternalV))
                and target.name in ORDER_KEYWORDS
            ):
                # ``attrs[0].srcAccessOrder = order`` in a local array of structs: the array
                # handed to a copy carries that order.
                frame.env[target.base.base.id] = SeqV((_with_field(holder, target.name, value),))
        elif isinstance(target, ir.Seq):
            items = _unpack_starred(value, target.items)
            for item_target, item in zip(target.items, items, strict=True):
                inner = item_target.value if isinstance(item_target, ir.Starred) else item_target
                state = self._assign(inner, item, frame, state, statement)
        elif isinstance(target, ir.Index):
            if (
                isinstance(statement, ir.Assign)
                # a slice (``dst[:] =``), not a key the code computes (``d[f"k.{i}"] =``)
                and isinstance(target.index, ir.Opaque)
                and not target.index.parts
                and host_elements(value)
            ):
                # ``file_array[:] = pinned_view[:]``: the host copies the elements out.
                self._host_read(value, statement.value, "an element copy", statement, frame, state)
            keyed = _keyed_spelling(target)
            if keyed:
                frame.env[keyed] = value  # later reads of ``state[key]`` here see this value
            if isinstance(target.base, (ir.Name, ir.Attr)):
                frame.env.pop(f"{TRUTH_PREFIX}{_spelling(target.base)}", None)  # no longer known empty
            memory = memory_of(value)
            if memory is None and isinstance(value, Unknown):
                # Something the code does not place goes in, so what comes out may be anything.
                memory = Memory.UNKNOWN
            before = self._peek(target.base, frame)
            table = _table_name(target.base)
            if table and _only_addresses(value) and isinstance(frame.env.get(table), TensorV):
                # ``ptrs.numpy()[:] = base + ids * stride``: a host table now holding addresses
                # into that memory, which a copy given it reads or writes.
                _fill_table(frame, table, value)
            elif isinstance(before, TensorV):
                pass  # ``buf[a:b] = x`` writes into a tensor, which holds no element
            elif memory is not None:
                # ``caches[name] = tensor``: the container now holds that memory (that buffer).
                held = value if isinstance(value, TensorV) else TensorV(memory)
                state = self._holds(target.base, held, frame, state)
            elif all(isinstance(option, (StreamV, EventV, ObjectV, QueueV)) for option in options(value)):
                state = self._holds(target.base, value, frame, state)  # ``events[key] = event``
            elif isinstance(value, RecordV) and value.type_name != "dict":
                # ``self.pending[room] = job``: a dict of such records (``pop(room)`` gives one).
                state = self._holds(target.base, SeqV((value,)), frame, state)
            container = (
                self._peek(target.base, frame) if isinstance(target.base, (ir.Name, ir.Attr)) else UNKNOWN
            )
            # What a function was handed, stored as it is into something not placed
            # (``self._subscribers[rid] = callback``): registering it, not a kernel's write.
            unplaced_store = (
                isinstance(statement, ir.Assign)
                and isinstance(statement.value, ir.Name)
                and isinstance(value, Unknown)
                and isinstance(before, Unknown)
            )
            if isinstance(before, TensorV) or (
                not (isinstance(value, TensorV) and value.key)
                and not _python_container(container)
                and not unplaced_store
            ):
                # Storing a buffer made elsewhere in a container is no kernel, nor is a store
                # into a dict or list the code made (``self._live[offset] = n``); ``t[i] = x`` is.
                span = target.base.span if isinstance(target.base, (ir.Name, ir.Attr)) else None
                if span is None and isinstance(statement, (ir.Assign, ir.AugAssign)):
                    span = statement.span  # ``self.kv[layer][block, i] = k``
                state = self._write(target, frame, state, span)
        return state

    def _holds(self, container: ir.Expr, element: Value, frame: Frame, state: PathState) -> PathState:
        if isinstance(container, ir.Name):
            held = frame.env.get(container.id, UNKNOWN)
            if isinstance(held, (Unknown, TensorV)):
                # A container made elsewhere: its other elements are still unknown. A tensor
                # written in place (``buf[a:b] = x``) is still the same buffer.
                return state
            frame.env[container.id] = join([held, element])
        elif isinstance(container, ir.Attr):
            holder, state = self._eval(container.base, frame, state)
            if isinstance(holder, ObjectV):
                self._remember_field(holder, container.name, element)
            if isinstance(container.base, ir.Name):
                local = f"{container.base.id}.{container.name}"
                if local in frame.env:
                    frame.env[local] = join([frame.env[local], element])
        return state

    def _remember_field(self, holder: ObjectV, name: str, value: Value) -> None:
        """A field of one instance, and of the class as a whole (what a generic ``self`` sees)."""
        for option in options(value):
            if isinstance(option, StreamV):
                self._field_streams.setdefault((holder.module, holder.qualname), set()).add(option.key)
        self._remember((holder.module, holder.qualname, name), value)
        if holder.site:
            self._remember(_field_key(holder, name), value)

    def _remember(self, key: tuple[str, str, str], value: Value) -> None:
        """An attribute or module global assigned somewhere: readers anywhere may see it."""
        values = self._heap.setdefault(key, [])
        self._fields_of.setdefault(key[:2], set()).add(key[2])
        if value not in values and len(values) < 8:
            values.append(value)
            if _opens_paths(value):
                self._changed(key)
            if any(isinstance(option, QueueV) for option in options(value)):
                self._changed(_handles_of(key))

    def _changed(self, key: tuple[str, str, str]) -> None:
        """A field or global changed in the entry point now running (the last one numbered)."""
        self._heap_changed[key] = self._root_runs - 1
        self._heap_version += 1
        self._heap_versions[key] = self._heap_version

    def _may_be_none(self, expr: ir.Expr, frame: Frame) -> bool:
        """A field that only the constructor sets, to None and to something else (``self.buffer
        = None``, then ``if use_buffer: self.buffer = torch.empty(...)``): a test of whether it
        is None takes both ways. Reading a field drops None, since a field another method sets
        (``self.done = event`` after a copy) is set by the time it is read; only the
        constructor's own None stays possible."""
        if not (isinstance(expr, ir.Attr) and isinstance(expr.base, ir.Name)):
            return False
        holder = frame.env.get(expr.base.id)
        if not isinstance(holder, ObjectV):
            return False
        cls = (holder.module, holder.qualname)
        writers = {
            writer
            for module, qualname in [cls, *self._base_classes(cls)]
            for writer in self._field_writers.get((module, qualname, expr.name), ())
        }
        if not writers or any(qualname.rpartition(".")[2] != "__init__" for _, qualname in writers):
            return False
        return any(_is_none(value) is True for value in self._stored_field(holder, expr.name))

    def _counted(self, holder: ObjectV, name: str) -> bool:
        """A field some method of the object's class (or a base) adds to (``self.count += 1``):
        a number read there is not the one the constructor set."""
        cls = (holder.module, holder.qualname)
        for owner in [cls, *self._base_classes(cls)]:
            for key in self._field_writers.get((*owner, name), ()):
                function = self._functions[key]
                if name in _fields_assigned(function.body, function.params[0].name, augmented=True):
                    return True
        return False

    def _stored_field(self, holder: ObjectV, name: str) -> list[Value]:
        """What was assigned to a field of this instance, or else of its class as a whole."""
        instance = _field_key(holder, name)
        whole = (holder.module, holder.qualname, name)
        return (holder.site and self._stored(instance)) or self._stored(whole)

    def _stored(self, key: tuple[str, str, str]) -> list[Value]:
        """What was assigned to a field or global so far (noting that the running entry point
        read it)."""
        self._heap_reads.add(key)
        return self._heap.get(key, [])

    def _stored_handles(self, key: tuple[str, str, str]) -> list[Value]:
        """What was assigned to a field, for a read that uses only the handles among it (a
        field guessed by name on an object the code does not place): a later value opens new
        paths to such a read only if it is a queue, so only that reruns the reader."""
        self._heap_reads.add(_handles_of(key))
        return self._heap.get(key, [])

    def _identity(self, value: Value, expr: ir.Expr | None, frame: Frame) -> str:
        """Which buffer an expression names: its allocation or copy site where known, else
        its spelling, scoped to the object or function that holds it."""
        if key := buffer_key(value):
            return key
        if isinstance(expr, ir.Index):
            return self._identity(UNKNOWN, expr.base, frame)
        if (
            isinstance(expr, ir.Call)
            and isinstance(expr.func, ir.Attr)
            and expr.func.name in SAME_MEMORY_METHODS
        ):
            return self._identity(UNKNOWN, expr.func.base, frame)
        if isinstance(expr, ir.Name):
            if expr.id in frame.aliases:
                return frame.aliases[expr.id]
            return f"{frame.module.name}:{'.'.join(frame.stack)}:{expr.id}"
        if isinstance(expr, ir.Attr):
            chain: list[str] = []
            root: ir.Expr = expr
            while isinstance(root, ir.Attr):
                chain.insert(0, root.name)
                root = root.base
            if isinstance(root, ir.Name):
                holder = frame.env.get(root.id)
                if isinstance(holder, ObjectV):
                    return f"{holder.module}.{holder.qualname}@{holder.site}:{'.'.join(chain)}"
                return f"{self._identity(UNKNOWN, root, frame)}.{'.'.join(chain)}"
        return ""

    def _host_read(
        self,
        value: Value,
        expr: ir.Expr | None,
        how: str,
        call: ir.Call | ir.Operator | ir.Assign,
        frame: Frame,
        state: PathState,
    ) -> None:
        if _only_addresses(value) or not state.pending:
            return
        copy = state.pending.get(self._identity(value, expr, frame))
        if copy is None and isinstance(expr, ir.Index) and not how.startswith(_SCALAR_READS):
            # An entry of a container a copy wrote an entry of, under a key neither spells
            # (``torch.save(state[offloaded_key(k)])``); a scalar read (``int(state["step"])``)
            # is of another entry, most likely.
            copy = state.pending.get(f"{ENTRY_OF}{self._identity(UNKNOWN, expr, frame)}")
        if copy is None:
            # A container of buffers read whole (``torch.save({"k": self.key_cache}, path)``).
            copy = next((state.pending[k] for k in _held_buffer_keys(value) if k in state.pending), None)
        if copy is None:
            return
        self._host_reads_seen += 1
        if self._reporting:
            read = _read_spelling(expr) if expr is not None else ""
            self.host_reads.append(
                HostRead(frame.module.path, call.span, call.lines, how, copy, frame.flow, frame.thread, read)
            )

    def _completed(self, state: PathState, stream_key: str | None, before: int | None = None) -> None:
        """The host waited for a stream (every stream when None) on this path; noted for the
        project as a whole too (``_waited_somewhere``)."""
        self._waited_somewhere.add(stream_key if stream_key is not None else _ANY_STREAM)
        state.completed(stream_key, before)

    def _host_waited(self, target: Value | None, state: PathState) -> None:
        """The host waited for ``target`` (a stream or event; None: the whole device)."""
        if target is None or isinstance(target, (ExternalV, ModuleV)):
            self._completed(state, None)
        elif isinstance(target, StreamV):
            self._completed(state, None if target.key.startswith("opaque:") else target.key)
            if target.key.startswith("current@") and state.streams:
                self._completed(state, state.streams[-1].key)  # inside a stream block, that block's stream
            for waiter, waited, until in state.joined:
                if waiter == target.key:
                    # It waited on another stream: that stream's copies issued before are done too.
                    self._completed(state, waited, before=until)
        elif isinstance(target, EventV) and target.key in state.unrecorded:
            return  # made on this path and not recorded yet: synchronizing it returns at once
        elif isinstance(target, EventV):
            record = state.records.get(target.key)
            recorded_on = record[0] if record is not None else None
            if (
                isinstance(recorded_on, StreamV)
                # A stream the project made, or the thread's current one where nothing replaced it
                # (no ``set_stream`` seen): an event there follows that stream's work alone.
                and (
                    _made_stream_key(recorded_on.key)
                    or (recorded_on.key.startswith("current@") and not state.default_displaced)
                    # One the code names but does not make (``event.record(self.compute)``, the
                    # compute stream it was given): not a stream of this project's copies.
                    or (recorded_on.key.startswith("opaque:") and recorded_on.label != _UNRESOLVED)
                )
                and all(copy.stream_key != recorded_on.key for copy in state.pending.values())
                and any(_made_stream_key(copy.stream_key) for copy in state.pending.values())
            ):
                # Recorded on a stream where no copy still running was issued, while copies run on
                # a stream the project made (``landed.record()`` inside ``with compute:``, or after
                # the copy's ``with`` block): the event orders that stream's work, and that of the
                # streams it waited on, not the copies'.
                assert record is not None
                for copy in list(state.pending.values()):
                    # Done where the event's stream waited, after the copy and before the record,
                    # on the copy's stream (or on one that had waited on it).
                    if _joins_reach(state.joined, recorded_on.key, copy.stream_key, copy.time, record[1]):
                        self._completed(state, copy.stream_key, before=copy.time + 1)
                return
            # Every copy launched before the record counts as waited for, whatever its stream:
            # streams switched by means the analysis does not model (``set_stream``) must not
            # make a correct wait look wrong. An unseen record counts as after every copy.
            self._completed(state, None, before=record[1] if record is not None else None)
        elif isinstance(target, Unknown):
            self._completed(state, None)
        elif isinstance(target, UnionV):
            # One of several events or streams: done is what each of them would have finished.
            remaining: set[str] = set()
            # ``None`` among them is no path: calling a wait on it would have raised.
            for option in [o for o in target.options if not (isinstance(o, ConstV) and o.value is None)]:
                trial = state.copy()
                self._host_waited(option, trial)
                remaining |= trial.pending.keys()
            state.pending = {key: copy for key, copy in state.pending.items() if key in remaining}

    def _queried(self, test: ir.Expr, frame: Frame, state: PathState) -> tuple[Value, bool] | None:
        """(event or stream, negated) for a test ``x.query()`` or ``not x.query()``."""
        if isinstance(test, ir.Or):
            # ``event is None or event.query()`` where the first is false here: the query.
            for first, second in ((test.left, test.right), (test.right, test.left)):
                if _truth(self._eval(first, frame, state.copy())[0]) is False:
                    return self._queried(second, frame, state)
            return None
        negated = isinstance(test, ir.Not)
        call = test.operand if isinstance(test, ir.Not) else test
        if isinstance(call, ir.Call) and isinstance(call.func, ir.Attr) and call.func.name == "query":
            target, _ = self._eval(call.func.base, frame, state.copy())
            if isinstance(target, Unknown) and target.spelling:
                target = EventV(f"opaque:{target.spelling}", target.spelling)
            return target, negated
        if (
            isinstance(call, ir.Call)
            and isinstance(call.func, ir.Attr)
            and not call.args
            and frame.depth < _MAX_DEPTH
        ):
            # ``while not self.done():`` over a method that returns ``self.copied.query()``.
            method, _ = self._eval(call.func, frame, state.copy())
            function = (
                self._functions.get((method.module, method.qualname)) if isinstance(method, FuncV) else None
            )
            if (
                isinstance(method, FuncV)
                and isinstance(method.bound, (ObjectV, RecordV))
                and function is not None
                and function.params
                and len(function.body) == 1
                and isinstance(function.body[0], ir.Return)
                and function.body[0].value is not None
            ):
                module = self._modules[method.module]
                inner = Frame(
                    module,
                    {function.params[0].name: method.bound},
                    frame.thread,
                    frame.flow,
                    frame.depth + 1,
                    frame.stack,
                )
                found = self._queried(function.body[0].value, inner, state)
                if found is not None:
                    return found[0], found[1] != negated
        return None

    def _note_made(
        self, target: ir.Name | ir.Attr, statement: ir.Assign, value: Value, frame: Frame, state: PathState
    ) -> None:
        """``out = model(batch)`` (or ``x = x + h``) under a stream the code entered: GPU work
        queued on that stream made the value, so a copy of it on that stream follows its
        producer in stream order."""
        made_by = statement.value
        if isinstance(made_by, ir.Operator):
            # ``x + h``, not an address plus an offset
            computed = isinstance(value, TensorV) and value.memory is not Memory.HOST and not value.address
        elif isinstance(made_by, ir.Call) and not (
            isinstance(made_by.func, ir.Attr) and made_by.func.name in SAME_MEMORY_METHODS
        ):
            # What a library function or a model (``model(x)``, ``engine.forward(x)``) returns;
            # an unknown object's other methods may hand out a buffer it holds
            # (``pool.get_kv_buffer(i)``), and a project function that returns one made nothing.
            opaque = isinstance(value, ExternalV) or (isinstance(value, Unknown) and not value.spelling)
            # ``len(ids)``, ``getattr(p, "main_grad", p.grad)``: no GPU work
            builtin = isinstance(made_by.func, ir.Name) and made_by.func.id in _PYTHON_BUILTINS
            computed = not builtin and (
                (opaque and self._computes(made_by, frame))
                or (isinstance(value, TensorV) and value.memory is not Memory.HOST and not value.key)
            )
        else:
            computed = False
        key = f"{_MADE_ON}{'/'.join(frame.stack)}:{_spelling(target)}"
        if not computed:
            state.writes.pop(key, None)
            return
        state.writes[key] = (self._clock, statement.span.line, self._running_on(frame, state))

    def _wrapper(self, func: FuncV, function: ir.Function) -> Value | None:
        """What the project's decorators of a function make of it (a closure calling it), read
        once per function; None where none of them is the project's or each hands it back."""
        key = (func.module, func.qualname)
        if key not in self._wrappers:
            self._wrappers[key] = None  # a decorator that calls the function gets it undecorated
            definition = replace(self._definition_frame(func.module), depth=0)
            original = FuncV(func.module, func.qualname, undecorated=True)
            made: Value = original
            for decorator in reversed(function.decorators):
                value, _ = self._eval(decorator, definition, PathState())
                if isinstance(value, (FuncV, LambdaV)):  # not ``staticmethod``, ``torch.no_grad()``
                    site = _definition_site(function)
                    made, _ = self._dispatch(value, (made,), (), site, definition, PathState())
            self._wrappers[key] = made if isinstance(made, (FuncV, LambdaV)) and made != original else None
        return self._wrappers[key]

    def _write_held_buffers(
        self, holder: ObjectV, frame: Frame, state: PathState, span: Span, on: StreamV | None
    ) -> None:
        """Writes, by code the project does not show, of the GPU buffers an object's fields hold."""
        where = self._running_on(frame, state, on)
        owner = (holder.module, f"{holder.qualname}@{holder.site}" if holder.site else holder.qualname)
        for name in sorted(self._fields_of.get(owner, ())):
            for value in self._stored((*owner, name)):
                for option in options(value):
                    if isinstance(option, TensorV) and option.key and option.memory is not Memory.HOST:
                        self._kernel_wrote(option.key, span.line, where, state)

    def _running_on(self, frame: Frame, state: PathState, on: StreamV | None = None) -> str:
        """The stream work queued here runs on: ``on`` (a launch's own), the stream the path
        entered, or the thread's current one."""
        stream = on or self._stream(frame, state)
        return stream.key if stream is not None else f"current@{frame.thread}"

    def _kernel_wrote(self, key: str, line: int, where: str, state: PathState) -> None:
        """A kernel the project does not show wrote the buffer ``key`` on stream ``where``."""
        state.writes[key] = (self._clock, line, where)
        self._kernel_streams.add(where)

    def _computes(self, call: ir.Call, frame: Frame) -> bool:
        """Whether an unmodelled call computes its result: a function of an imported module, a
        call of an object (a model), or ``forward``; not another method of an object the code
        does not show."""
        if not isinstance(call.func, ir.Attr):
            return True
        return self._model_call(call, frame) or self._module_function(call.func, frame)

    def _module_function(self, func: ir.Attr, frame: Frame) -> bool:
        root = _root_expr(func.base)
        return isinstance(root, ir.Name) and root.id in frame.module.code.imports and root.id not in frame.env

    def _model_call(self, call: ir.Call, frame: Frame) -> bool:
        """``self.model(x)`` (the object a field holds, called: its class has no such method)
        or ``forward``."""
        if not isinstance(call.func, ir.Attr):
            return False
        holder = self._peek(call.func.base, frame)
        held_object_called = isinstance(holder, ObjectV) and (
            self._method(holder.module, holder.qualname, call.func.name) is None
        )
        return held_object_called or call.func.name == MODEL_FORWARD

    def _write(
        self,
        target: ir.Expr,
        frame: Frame,
        state: PathState,
        span: Span | None,
        kernel: bool = True,
        on: StreamV | None = None,
        launched: bool = False,
    ) -> PathState:
        """A write (``t[i] = x``, ``t.mul_(2)``) on the stream current here, or on ``on`` (a
        launch configuration's). A copy on another stream is ordered after it only by a barrier
        taken after it. ``kernel``: a kernel's write, not a copy's; ``launched``: by code outside
        the project given the buffer (a model, a kernel)."""
        key = _root_spelling(target)
        if key:
            where = self._running_on(frame, state, on)
            root = self._peek(_root_expr(target), frame)
            # A buffer the code does not place, given to a model or kernel under a stream the
            # project made: work on that stream's device.
            unplaced = (
                launched and isinstance(root, Unknown) and bool(root.spelling) and _made_stream_key(where)
            )
            if (memory_of(root) in (Memory.DEVICE, Memory.UNKNOWN) or unplaced) and not (
                isinstance(target, ir.Index) and any(isinstance(o, (SeqV, RecordV)) for o in options(root))
            ):
                # A tensor that may be on the GPU (not a dict, not host memory; not a list the
                # code fills, whose ``layers[i] = t`` stores a tensor in it).
                (self._kernel_streams if kernel else self._copied_into_on).add(where)
            written = (self._clock, span.line if span else 0, where)
            keys = [key]
            # By the buffer too, where the code shows which one: a helper that writes it under
            # another name (``k_buf`` here, ``src`` in the copy) writes the same memory.
            buffer = self._peek(_root_expr(target), frame)
            if isinstance(buffer, TensorV) and buffer.key:
                keys.append(buffer.key)
            elif isinstance(buffer, Unknown) and buffer.spelling:
                keys.append(f"{_UNPLACED}{buffer.spelling}")  # as the caller spells it
            for written_key in keys:
                earlier = state.writes.get(written_key)
                if earlier is not None and earlier[2] != where and where in self._copy_streams:
                    continue  # a copy stream's write does not hide the producer's use before it
                state.writes[written_key] = written
        return state

    def _peek(self, expr: ir.Expr, frame: Frame) -> Value:
        """What a name or a field of a named object holds, read without running code."""
        if isinstance(expr, ir.Name):
            return frame.env.get(expr.id, UNKNOWN)
        if isinstance(expr, ir.Attr):
            if isinstance(expr.base, ir.Name):
                local = frame.env.get(f"{expr.base.id}.{expr.name}")
                if local is not None:
                    return local
            holder = self._peek(expr.base, frame)
            if (
                isinstance(holder, ObjectV)
                and self._method(holder.module, holder.qualname, expr.name) is None
            ):
                return self._attribute(holder, expr, frame)
            if isinstance(holder, RecordV):
                return holder.get(expr.name) or UNKNOWN  # ``self.store.new_tokens``: its field
            if isinstance(holder, Unknown) and holder.spelling:
                return Unknown(f"{holder.spelling}.{expr.name}")
        if isinstance(expr, ir.Index):
            # ``self.kv[layer]``: an element, at an index read as the code spells a constant
            container = self._peek(expr.base, frame)
            index = expr.index
            at: Value = ConstV(index.value, "", "", None) if isinstance(index, ir.Const) else UNKNOWN
            return (
                _index(container, at) if isinstance(container, (SeqV, RecordV, UnionV, TensorV)) else UNKNOWN
            )
        return UNKNOWN

    def _eval(self, expr: ir.Expr, frame: Frame, state: PathState) -> tuple[Value, PathState]:
        if isinstance(expr, ir.Name):
            return self._name(expr, frame), state
        if isinstance(expr, ir.Attr):
            base, state = self._eval(expr.base, frame, state)
            if isinstance(expr.base, ir.Name) and f"{expr.base.id}.{expr.name}" in frame.env:
                return frame.env[f"{expr.base.id}.{expr.name}"], state
            value = self._attribute(base, expr, frame)
            if (
                isinstance(base, Unknown)
                and isinstance(value, Unknown)
                and isinstance(expr.base, ir.Attr)
                and isinstance(expr.base.base, ir.Name)
                and expr.base.base.id == "self"
            ):
                # ``self.context.host_metadata``: a collaborator the object keeps, made where
                # the code does not show; the project's properties of that name, where few
                # classes have one.
                value = self._properties_named(expr.name, base.spelling) or value
            return self._through_getters(value, frame, state)
        if isinstance(expr, ir.Call):
            return self._call(expr, frame, state)
        if isinstance(expr, ir.Const):
            return ConstV(expr.value, repr(expr.value), frame.module.path, expr.span), state
        if isinstance(expr, ir.Seq):
            items = []
            for item in expr.items:
                value, state = self._eval(item, frame, state)
                items.append(value)
            keys: list[str | None] = []
            for key_expr in expr.keys:
                key, state = self._eval(key_expr, frame, state)
                keys.append(spelt_key(key))
            if keys and all(key is not None for key in keys):
                # Keyed by constants the code spells: a lookup by one picks its entry.
                return RecordV("dict", tuple((str(k), v) for k, v in zip(keys, items, strict=True))), state
            return SeqV(tuple(items)), state
        if isinstance(expr, ir.Index):
            base, state = self._eval(expr.base, frame, state)
            index, state = self._eval(expr.index, frame, state)
            keyed = _keyed_spelling(expr)
            if keyed in frame.env:
                return frame.env[keyed], state
            item_method = (
                self._method(base.module, base.qualname, "__getitem__") if isinstance(base, ObjectV) else None
            )
            span = expr.base.span if isinstance(expr.base, (ir.Name, ir.Attr)) else None
            if item_method is not None and span is not None:
                # ``self.streams["store"]`` on a project object: its ``__getitem__`` answers.
                at = ir.Call(
                    ir.Attr(expr.base, "__getitem__", span), (expr.index,), (), span, (span.line, span.line)
                )
                return self._invoke(FuncV(*item_method, base), (index,), (), state, frame, at)
            return _index(base, index), state
        if isinstance(expr, ir.Cond):
            test, state = self._eval(expr.test, frame, state)
            truth = _truth(test)
            if truth is True:
                return self._eval(expr.then, frame, state)
            if truth is False:
                return self._eval(expr.orelse, frame, state)
            then, state = self._eval(expr.then, frame, state)
            orelse, state = self._eval(expr.orelse, frame, state)
            if _defaulting(expr):
                return join([then, orelse]), state  # ``device if device is not None else "cuda"``
            return _alternatives(then, orelse), state
        if isinstance(expr, ir.Lambda):
            return LambdaV(frame.module.name, expr.params, expr.body, tuple(frame.env.items())), state
        if isinstance(expr, ir.Starred):
            return self._eval(expr.value, frame, state)
        if isinstance(expr, ir.Comp):
            iterable, state = self._eval(expr.iterable, frame, state)
            iterable = self._members(iterable)
            if (
                expr.key is None
                and isinstance(iterable, RecordV)
                and iterable.type_name != "dict"
                and 0 < len(iterable.fields) <= _SPELT_RANGE
            ):
                # ``(t.tolist() for t in logprobs)`` over a named tuple: an item per field.
                made = []
                for _, held in iterable.fields:
                    scope = replace(frame, env=dict(frame.env))
                    state = self._assign(expr.target, held, scope, state, expr)
                    value, state = self._eval(expr.element, scope, state)
                    made.append(value)
                return SeqV(tuple(made)), state
            if (
                expr.key is not None
                and isinstance(iterable, SeqV)
                and 0 < len(iterable.items) <= _SPELT_RANGE
            ):
                entries = self._keyed_comprehension(expr, expr.key, iterable, frame, state)
                if entries is not None:
                    return entries
            if (
                expr.key is None
                and isinstance(expr.element, (ir.Index, ir.Attr, ir.Name, ir.Seq))
                and isinstance(iterable, SeqV)
                and 0 < len(iterable.items) <= _SPELT_RANGE
                and all(_spelt_key(item) for item in iterable.items)
            ):
                # ``(self._streams[k] for k in ("upload", "compute"))``, ``[(k, v) for k, v in
                # vars(self).items()]``: a lookup per constant (or named entry) the code
                # spells, each its own item (what unpacking them binds).
                picked = []
                for constant in iterable.items:
                    scope = replace(frame, env=dict(frame.env))
                    state = self._assign(expr.target, constant, scope, state, expr)
                    value, state = self._eval(expr.element, scope, state)
                    picked.append(value)
                return SeqV(tuple(picked)), state
            count = _small_range(iterable)
            # ``[Pair() for _ in range(2)]``: one object stands for several.
            several = frame.several or (count >= 2 and isinstance(expr.element, ir.Call))
            scope = replace(frame, env=dict(frame.env), several=several)
            state = self._assign(expr.target, _element(iterable), scope, state, expr)
            element, state = self._eval(expr.element, scope, state)
            if isinstance(element, (StreamV, EventV)) and count:
                # ``[torch.cuda.Stream() for _ in range(2)]``: that many distinct streams.
                return SeqV(tuple(replace(element, key=f"{element.key}#{i}") for i in range(count))), state
            if all(isinstance(option, (*_HELD_IN_LISTS, SeqV)) for option in options(element)) and (
                not isinstance(element, SeqV)
                or isinstance(expr.element, (ir.Seq, ir.Comp))
                # a list a helper builds of such values (``allocator.batched_allocate(shapes)``)
                or (
                    isinstance(expr.element, ir.Call)
                    and all(isinstance(item, _HELD_IN_LISTS) for item in element.items)
                )
            ):
                # ``[torch.cuda.Stream() for _ in range(n)]``, ``{c.name: c for c in classes}``,
                # ``[Slot(host=torch.empty(n, pin_memory=True)) for _ in range(k)]``, and a list
                # of such lists (``[[Slot(...) for key in keys] for layer in layers]``)
                return SeqV((element,)), state
            if isinstance(element, TensorV):
                if expr.key is not None:
                    # A dict of buffers: still a dict (``pinned | others`` merges dicts).
                    return SeqV((element,)), state
                return element, state  # buffers made in a loop: one allocation site, one buffer
            return taint([element]), state
        if isinstance(expr, ir.IsNone):
            operand, state = self._eval(expr.operand, frame, state)
            is_none = _is_none(operand)
            if is_none is None or (is_none is False and self._may_be_none(expr.operand, frame)):
                return UNKNOWN, state
            return ConstV(is_none != expr.negated, "is None", frame.module.path, None), state
        if isinstance(expr, ir.Equals):
            left, state = self._eval(expr.left, frame, state)
            right, state = self._eval(expr.right, frame, state)
            on_device = memory_of(left) is Memory.DEVICE or memory_of(right) is Memory.DEVICE
            if expr.span is not None and not expr.identity and not on_device:
                # ``host == ref`` compares every element of a host tensor on the CPU.
                site = ir.Operator(
                    "!=" if expr.negated else "==", (expr.left, expr.right), expr.span, expr.lines
                )
                for side, value in ((expr.left, left), (expr.right, right)):
                    if host_elements(value):
                        self._host_read(value, side, f"`{site.symbol}`", site, frame, state)
            if isinstance(left, ConstV) and isinstance(right, ConstV):
                equal = left.value == right.value
                return ConstV(equal != expr.negated, "==", frame.module.path, None), state
            if expr.identity and any(
                isinstance(a, ConstV)
                and isinstance(a.value, str)
                and a.value.startswith(SENTINEL)
                and isinstance(b, (RecordV, ObjectV, TensorV, StreamV, EventV, SeqV))
                for a, b in ((left, right), (right, left))
            ):
                # A sentinel is no record, object or buffer the code made (``job is _STOP``).
                return ConstV(expr.negated, "is", frame.module.path, None), state
            return UNKNOWN, state
        if isinstance(expr, ir.Not):
            operand, state = self._eval(expr.operand, frame, state)
            truth = _truth(operand)
            if truth is None:
                return UNKNOWN, state
            spelt = operand.spelling if isinstance(operand, ConstV) else "..."
            where = operand.span if isinstance(operand, ConstV) else None
            return ConstV(not truth, f"not {spelt}", frame.module.path, where), state
        if isinstance(expr, ir.Or):
            left, state = self._eval(expr.left, frame, state)
            kept = [option for option in options(left) if _or_truth(option) is not False]
            if kept and len(kept) == len(options(left)) and all(_or_truth(option) for option in kept):
                return join(kept), state  # true on every path: the right side never runs
            right, state = self._eval(expr.right, frame, state)
            result = join([*kept, right])
            if _or_truth(result) is not None and any(_or_truth(o) is None for o in (*kept, *options(right))):
                # ``warned or not t.is_cuda``: a join keeps only the known options, but whether
                # the whole is true is not known.
                return UnionV((*options(result), UNKNOWN)), state
            return result, state
        if isinstance(expr, ir.Operator):
            operands: list[Value] = []
            for side in expr.operands:
                value, state = self._eval(side, frame, state)
                operands.append(value)
            ctypes_types = [
                v for v in operands if isinstance(v, ExternalV) and v.dotted.startswith("ctypes.c_")
            ]
            if expr.symbol == "*" and len(ctypes_types) == 1:
                # ``ctypes.c_uint64 * len(ptrs)``: an array type, whose instance holds what it is
                # made from (``(c_uint64 * n)(*ptrs)``).
                return ExternalV(f"ctypes.array.{ctypes_types[0].dotted.removeprefix('ctypes.')}"), state
            if expr.symbol in _CONTAINER_OPERATORS and any(
                isinstance(option, (SeqV, RecordV)) for value in operands for option in options(value)
            ):
                # ``tensors_host | others``, ``parts + [view]``, ``[buf] * n``: Python merging or
                # repeating its containers, which reads no element of the tensors they hold.
                return _combined_containers(operands), state
            # With a GPU operand the operator is a kernel there (torch needs both on one device).
            if not any(memory_of(value) is Memory.DEVICE for value in operands):
                for side, value in zip(expr.operands, operands, strict=True):
                    if memory_of(value) is Memory.HOST and not _only_addresses(value):
                        self._host_read(value, side, f"`{expr.symbol}`", expr, frame, state)
            placed = {memory_of(v) for v in operands} - {None}
            if placed == {Memory.HOST} and not any(_only_addresses(v) for v in operands):
                return TensorV(Memory.HOST), state  # computed on the CPU now: a new tensor
            result = taint(operands, same_buffer=True)  # an address plus offsets, or GPU work
            if isinstance(result, TensorV) and not result.key and any(_on_device(v) for v in operands):
                result = replace(result, memory=Memory.DEVICE)  # torch needs both on one device
            # (``+`` and ``*`` also join and repeat lists of pointers: tensor work only where an
            # operand is a buffer the code knows)
            sequence_operator = expr.symbol in ("+", "*") and not any(
                isinstance(v, TensorV) and v.key for v in operands
            )
            if (
                isinstance(result, TensorV)
                and result.memory is Memory.DEVICE
                and not any(_only_addresses(v) for v in operands)
                and not sequence_operator
                and expr.span is not None
            ):
                return self._computed(result, frame, expr, state), state
            return result, state
        parts = []
        for part in expr.parts:
            value, state = self._eval(part, frame, state)
            parts.append(value)
        return taint(parts, same_buffer=True), state

    def _keyed_comprehension(
        self, expr: ir.Comp, key_expr: ir.Expr, iterable: SeqV, frame: Frame, state: PathState
    ) -> tuple[Value, PathState] | None:
        """``{kind: attributes(kind) for kind in Kind}`` over elements the code spells: a dict
        with an entry per key, when every key is a constant."""
        fields: list[tuple[str, Value]] = []
        for item in iterable.items:
            scope = replace(frame, env=dict(frame.env))
            state = self._assign(expr.target, item, scope, state, expr)
            key, state = self._eval(key_expr, scope, state)
            if not isinstance(key, ConstV) or key.value is None:
                return None
            value, state = self._eval(expr.element, scope, state)
            fields.append((dict_key(key.value), value))
        first = fields[0][1] if fields else UNKNOWN
        if (
            len(fields) > 1
            and isinstance(expr.element, ir.Call)
            and all(value == first for _, value in fields)
            and isinstance(first, (StreamV, EventV))
            and not (isinstance(first, StreamV) and first.current_of)
            and not first.key.startswith("opaque:")
        ):
            # ``{name: torch.cuda.Stream() for name in NAMES}``: a stream made for each key.
            fields = [(name, replace(first, key=f"{first.key}[{name}]")) for name, _ in fields]
        return RecordV("dict", tuple(fields)), state

    def _members(self, value: Value) -> Value:
        """What iterating a value gives, as a sequence where the code spells it: an enum class
        its members (``for kind in Kind``)."""
        if not isinstance(value, ClassV) or not self._is_enum((value.module, value.qualname)):
            return value
        info = self._classes.get((value.module, value.qualname))
        if info is None or not info.constants:
            return value
        frame = self._definition_frame(value.module)
        members = [
            ConstV(member.value, f"{value.qualname}.{name}", frame.module.path, None)
            for name, _ in info.constants
            if isinstance(member := self._class_constant(value.module, value.qualname, name), ConstV)
        ]
        return SeqV(tuple(members)) if members else value

    def _is_enum(self, cls: tuple[str, str]) -> bool:
        info = self._classes.get(cls)
        if info is None:
            return False
        frame = self._definition_frame(cls[0])
        for base in info.bases:
            value, _ = self._eval(base, frame, PathState())
            if isinstance(value, ExternalV) and value.dotted.rsplit(".", 1)[-1] in ENUM_TYPES:
                return True
        return False

    def _name(self, expr: ir.Name, frame: Frame) -> Value:
        if expr.id in frame.env:
            return frame.env[expr.id]
        nested = (frame.module.name, f"{frame.stack[-1]}.{expr.id}") if frame.stack else None
        if nested is not None and nested in self._functions:
            # A function defined in the running one: it closes over the names bound here that
            # it (or a function inside it) uses. A closure held in one is kept without its own
            # names, so closures made in a loop do not nest in each other.
            used = self._closure_names(nested)
            closure = tuple(
                (name, replace(value, closure=()) if isinstance(value, FuncV) else value)
                for name, value in frame.env.items()
                if name in used
            )
            return FuncV(*nested, closure=closure)
        value = self._global(frame.module, expr.id, set())
        if isinstance(value, ConstV) and expr.span is not None:
            return replace(value, spelling=expr.id, path=frame.module.path, span=expr.span)
        if isinstance(value, Unknown):
            return Unknown(expr.id)
        return value

    def _closure_names(self, key: tuple[str, str]) -> set[str]:
        """The names a nested function and the functions inside it mention."""
        found = self._closure_names_of.get(key)
        if found is None:
            found = set(self._uses[id(self._functions[key].body)][1])
            for inner in self._nested_in.get(key, []):
                found |= self._closure_names(inner)
            self._closure_names_of[key] = found
        return found

    def _global(self, module: ModuleEntry, name: str, seen: set[tuple[str, str]]) -> Value:
        if (module.name, name) in seen:
            return UNKNOWN
        seen.add((module.name, name))
        code = module.code
        if (module.name, name) in self._functions:
            return FuncV(module.name, name)
        if (module.name, name) in self._classes:
            return ClassV(module.name, name)
        # Not a function or class (the module's shape says which it has): its binding.
        self._units_read.add((module.name, NAME + name))
        assigned = self._stored((module.name, "<globals>", name))
        if assigned:
            return join(assigned)
        if name in code.constants:
            if (module.name, name) not in self._constant_values:
                self._constant_values[(module.name, name)] = UNKNOWN  # a self-referential constant
                frame = Frame(module, {}, MAIN_THREAD, (), _MAX_DEPTH - 1, ())
                self._constant_values[(module.name, name)] = self._eval(
                    code.constants[name], frame, PathState()
                )[0]
            return self._constant_values[(module.name, name)]
        if name in code.imports:
            return self.resolve(self._absolute(module, code.imports[name]), seen)
        if name in ORDER_SPELLINGS:
            return ConstV(ORDER_SPELLINGS[name], name, module.path, None)
        return ExternalV(name) if name in _BUILTINS else UNKNOWN

    def _absolute(self, module: ModuleEntry, target: str) -> str:
        if not target.startswith("."):
            return target
        level = len(target) - len(target.lstrip("."))
        package = module.name.split(".")
        if not module.path.endswith("__init__.py"):
            package = package[:-1]
        base = package[: len(package) - (level - 1)] if level > 1 else package
        rest = target.lstrip(".")
        return ".".join([*base, rest] if rest else base)

    def resolve(self, dotted: str, seen: set[tuple[str, str]] | None = None) -> Value:
        """A dotted name: a project module, or a name inside one, or something external."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            name = ".".join(parts[:cut])
            if name in self._modules:
                module = self._modules[name]
                if cut == len(parts):
                    return ModuleV(name)
                value = self._global(module, parts[cut], seen if seen is not None else set())
                for attribute in parts[cut + 1 :]:
                    value = self._attribute(value, ir.Attr(ir.Name("_"), attribute), None)
                return value
        return ExternalV(dotted)

    def _attribute(self, base: Value, expr: ir.Attr, frame: Frame | None) -> Value:
        name = expr.name
        if name in COPY_APIS:
            return CopyApiV(name)
        if name in ORDER_SPELLINGS:
            path = frame.module.path if frame else ""
            return ConstV(ORDER_SPELLINGS[name], _spelling(expr), path, expr.span)
        if isinstance(base, UnionV):
            return join([self._attribute(option, expr, frame) for option in base.options])
        if isinstance(base, (ObjectV, ClassV)) and (base.module, f"{base.qualname}.{name}") in self._classes:
            return ClassV(base.module, f"{base.qualname}.{name}")  # a nested class (``self.Store(...)``)
        if isinstance(base, ObjectV):
            method = self._method(base.module, base.qualname, name)
            if method is not None:
                if _is_classmethod(self._functions[method]):
                    return FuncV(method[0], method[1], ClassV(base.module, base.qualname))
                overrides = [] if base.site else self._overrides_of_stub(method, name)
                if overrides:
                    # An abstract method of an object whose class the code does not show (a
                    # storage backend behind its base class): each subclass's runs.
                    return join(
                        [
                            FuncV(found[0], found[1], replace(base, module=m, qualname=c))
                            for m, c, found in overrides
                        ]
                    )
                return FuncV(method[0], method[1], base)
            stored = self._stored_field(base, name)
            spelled = Unknown(f"{base.alias or 'self'}.{name}")
            if stored and self._written_where_not_run(base, name):
                stored = [*stored, spelled]
            numbers = [value for value in stored if not isinstance(value, Unknown)]
            if (
                numbers
                and all(_is_number(value) for value in numbers)
                and (len(numbers) < len(stored) or self._counted(base, name))
            ):
                return spelled  # a count: set to 0, then added to or set to what the code does not show
            if not stored:
                constant = self._class_constant(base.module, base.qualname, name)
                return constant if constant is not None else spelled
            return join(stored)
        if isinstance(base, RecordV):
            found = base.get(name)
            if found is not None and _is_none(found) and (base.type_name, name) in self._record_fields_set:
                # Made without it, and set on some record of its type since (``slot.done =
                # stream.record()`` on a ring slot): whatever was set there.
                return join([found, UNKNOWN])
            if found is None:
                # A method of the record's own class (a dataclass's ``fetch()``), bound to it.
                if self._class_modules is None:
                    self._class_modules = {}
                    for module, qualname in self._classes:
                        self._class_modules.setdefault(qualname, []).append(module)
                defined_in = self._class_modules.get(base.type_name, [])
                method = self._method(defined_in[0], base.type_name, name) if len(defined_in) == 1 else None
                if method is not None:  # a property's getter runs where it is read
                    return FuncV(method[0], method[1], base)
            return found if found is not None else UNKNOWN
        if isinstance(base, ModuleV):
            return self.resolve(f"{base.name}.{name}")
        if isinstance(base, ClassV):
            method = self._method(base.module, base.qualname, name)
            if method is not None:
                classmethod = _is_classmethod(self._functions[method])
                return FuncV(method[0], method[1], base if classmethod else None)
            # A class attribute assigned through ``cls.x = ...`` (a singleton's instance).
            stored = self._stored((base.module, base.qualname, name))
            if not stored:
                constant = self._class_constant(base.module, base.qualname, name)
                if isinstance(constant, ConstV) and frame is not None:
                    # An enum member (``Order.Any``) is chosen where it is named, not where
                    # the class defines it: findings and fixes point there.
                    return ConstV(constant.value, _spelling(expr), frame.module.path, expr.span)
                return constant or UNKNOWN
            return join(stored)
        if isinstance(base, ExternalV):
            return ExternalV(f"{base.dotted}.{name}")
        if isinstance(base, (StreamV, EventV, Unknown)) and name in STREAM_HANDLES:
            return base  # a stream's handle (``s.cuda_stream``) names the stream itself
        if isinstance(base, (StreamV, EventV)) and name in ORDERING_METHODS:
            return MethodV(base, name)
        if isinstance(base, (ConstV, StreamV, EventV)) and name == "value":
            return base  # a ctypes scalar's value (``handle.value`` of a stream made through ``byref``)
        if name == "device" and memory_of(base) is Memory.DEVICE:
            # ``torch.empty(n, device=t.device)`` allocates where the GPU tensor t lives. (A
            # tensor made with no device is not placed by it: a default device the code sets
            # elsewhere, or a later ``.to()``, moves what it stands for.)
            path = frame.module.path if frame else ""
            return ConstV("cuda", _spelling(expr), path, expr.span)
        if name in ARRAY_METADATA and memory_of(base) is not None:
            return UNKNOWN  # a shape or a dtype: host metadata, not the array's memory
        if name in ARRAY_ADDRESSES and isinstance(base, TensorV):
            return replace(base, address=True)
        if isinstance(base, (TensorV, SeqV, UnionV)):
            return view_of(base)
        if isinstance(base, Unknown):
            owners = self._field_owners.get(name, set())
            if 1 <= len(owners) <= _MAX_OVERRIDES:
                stored = [
                    v for module, cls in sorted(owners) for v in self._stored_handles((module, cls, name))
                ]
                held: list[Value] = [v for v in stored if isinstance(v, _HANDLES)]
                holders = {
                    owner
                    for owner in owners
                    if any(isinstance(v, _HANDLES) for v in self._stored_handles((*owner, name)))
                }
                if held and holders == owners:
                    # What every class that has this field keeps in it (a guess).
                    return join([replace(v, guessed=True) if isinstance(v, TensorV) else v for v in held])
            if base.spelling:
                return Unknown(f"{base.spelling}.{name}")
            if name in DRIVER_ENTRY_POINTS:
                # ``load_cudart().cudaStreamCreateWithFlags``: a driver or runtime entry point of a
                # library handle the code does not place, read by its name.
                return Unknown(name)
        return UNKNOWN

    def _sets_own_fields(self, key: tuple[str, str]) -> bool:
        """Whether a method assigns a field of its own object (``self.x = ...``), or registers
        what it is given in one (``self.handlers[kind] = handler``)."""
        if key not in self._field_setters:
            function = self._functions[key]
            holder = function.params[0].name if function.params and function.class_name else ""
            given = {param.name for param in function.params[1:]}
            self._field_setters[key] = bool(
                holder
                and (_fields_assigned(function.body, holder) or _registers(function.body, holder, given))
            )
        return self._field_setters[key]

    def _class_constant(self, module: str, qualname: str, name: str) -> Value | None:
        """A class attribute the class body sets to a constant, a name or a field of one
        (``Any = 3`` in an ``IntEnum``), read without running code; the first class of the
        bases that sets it."""
        for cls in [(module, qualname), *self._base_classes((module, qualname))]:
            info = self._classes.get(cls)
            if info is None:
                continue
            for constant, expr in info.constants:
                if constant == name:
                    if not isinstance(expr, (ir.Const, ir.Name, ir.Attr)):
                        return None
                    value, _ = self._eval(expr, self._definition_frame(cls[0]), PathState())
                    return value
            for constant, expr in info.defaults:
                # An annotated class attribute set to a flag (``WAITS: bool = True``); one set
                # to ``None`` is most often a field each instance fills in later.
                if constant == name and isinstance(expr, ir.Const) and isinstance(expr.value, bool):
                    return ConstV(
                        expr.value,
                        repr(expr.value),
                        self._definition_frame(cls[0]).module.path,
                        expr.span,
                    )
        return None

    def _written_where_not_run(self, holder: ObjectV, name: str) -> bool:
        """Whether a method of the holder's class (or a base) that never ran assigns the field."""
        classes = [(holder.module, holder.qualname)]
        classes += self._base_classes(classes[0])
        return any(
            not writers <= self._entered
            for cls in classes
            if (writers := self._field_writers.get((cls[0], cls[1], name))) is not None
        )

    def _method(self, module: str, cls: str, name: str) -> tuple[str, str] | None:
        """The method ``name`` of the class, its own or the first base's that defines it."""
        key = (module, cls, name)
        if key not in self._methods_found:
            self._methods_found[key] = self._find_method(module, cls, name)
        return self._methods_found[key]

    def _find_method(self, module: str, cls: str, name: str) -> tuple[str, str] | None:
        seen = 0
        queue = [(module, cls)]
        while queue and seen < 16:
            seen += 1
            current = queue.pop(0)
            if (current[0], f"{current[1]}.{name}") in self._functions:
                return current[0], f"{current[1]}.{name}"
            queue.extend(self._base_classes(current))
        return None

    def _arguments(
        self, call: ir.Call, frame: Frame, state: PathState
    ) -> tuple[list[Value], list[tuple[str, Value]], PathState]:
        """A call's arguments, evaluated in order (their own calls may have effects)."""
        args: list[Value] = []
        for arg in call.args:
            value, state = self._eval(arg, frame, state)
            if isinstance(arg, ir.Starred):
                # ``fn(*args)``: the elements of a sequence the code spells are the arguments.
                # Otherwise one argument standing for them all (a pointer array's contents).
                args.extend(value.items if isinstance(value, SeqV) else (taint([value]),))
            else:
                args.append(value)
        kwargs: list[tuple[str, Value]] = []
        for key, arg in call.kwargs:
            value, state = self._eval(arg, frame, state)
            if key == ir.SPLAT:
                # ``f(**options)`` over a dict the code spells: its entries are keywords.
                kwargs.extend(value.fields if isinstance(value, RecordV) else ())
            else:
                kwargs.append((key, value))
        return args, kwargs, state

    def _overrides(
        self,
        name: str,
        receiver: str = "",
        call: ir.Call | None = None,
        excluded: tuple[str, str] | None = None,
    ) -> Value | None:
        """A method called on an object the analysis cannot place: every project method of
        that name that matters runs (a backend chosen by configuration), when there are few."""
        if self._methods_by_name is None:
            self._methods_by_name = {}
            for (module, qualname), function in self._functions.items():
                if (
                    function.class_name
                    # A method that matters, or an accessor handing out a buffer the object
                    # holds (``pool.get_page(i)``): what it gives is that buffer.
                    and ((module, qualname) in self._reach or _hands_out_a_field(function))
                    and not function.name.startswith("__")
                ):
                    strong = (module, qualname) in self._relevant
                    self._methods_by_name.setdefault(function.name, []).append(
                        (module, function.class_name, strong)
                    )
        # Calls met again (on every path through them) find their owners once, by what
        # ``_accepts`` reads of a call: its star arguments, positional count and keywords.
        shape = None if call is None else (call.star_args, len(call.args), tuple(k for k, _ in call.kwargs))
        cached = (name, shape, excluded)
        owners = self._override_owners.get(cached)
        if owners is None:
            found_by_name = [
                (module, cls, strong)
                for module, cls, strong in self._methods_by_name.get(name, [])
                # ``comm.init()`` is not a call of ``Backend.init(self, caches, stream)``.
                if (call is None or _accepts(self._functions[(module, f"{cls}.{name}")], call))
                and (module, cls) != excluded
            ]
            # Those that name a stream construct or a copy first; only if none does, those
            # that write or read buffers (a helper class whose method fills what a copy reads).
            owners = [(m, c) for m, c, strong in found_by_name if strong] or [
                (m, c) for m, c, _ in found_by_name
            ]
            self._override_owners[cached] = owners
        if not 1 <= len(owners) <= _MAX_OVERRIDES:
            return None
        options = [
            FuncV(found[0], found[1], ObjectV(module, cls, alias=receiver))
            for module, cls in owners
            if (found := self._method(module, cls, name)) is not None
        ]
        return options[0] if len(options) == 1 else UnionV(tuple(options))

    def _inert_project_method(self, name: str, call: ir.Call) -> bool:
        """A method called on an object the analysis cannot place, that only project classes
        define and none of whose definitions matters (``proposer.propose(ids, n)``): one of
        them, not code outside the project that may write what it is given."""
        if name == MODEL_FORWARD or name.startswith("__"):
            return False
        if self._inert_methods is None:
            self._inert_methods = {}
            for (module, qualname), function in self._functions.items():
                if function.class_name and not function.name.startswith("__"):
                    self._inert_methods.setdefault(function.name, []).append((module, qualname))
        defined = [key for key in self._inert_methods.get(name, []) if _accepts(self._functions[key], call)]
        return 1 <= len(defined) <= _MAX_OVERRIDES and not any(key in self._reach for key in defined)

    def _properties_named(self, name: str, receiver: str) -> Value | None:
        """The getters of the project's properties called ``name``, each bound to an instance of
        its class, where one to a few classes define one."""
        if self._properties_by_name is None:
            self._properties_by_name = {}
            for (module, qualname), function in self._functions.items():
                if function.class_name and _is_property(function):
                    self._properties_by_name.setdefault(function.name, []).append((module, qualname))
        found = self._properties_by_name.get(name, [])
        if not 1 <= len(found) <= _MAX_OVERRIDES:
            return None
        getters = [
            FuncV(module, qualname, ObjectV(module, qualname.rsplit(".", 1)[0], alias=receiver))
            for module, qualname in found
        ]
        return getters[0] if len(getters) == 1 else UnionV(tuple(getters))

    def _super_caller(self, call: ir.Call, frame: Frame) -> ir.Function | None:
        """The method a ``super().name(...)`` call is made in; None for any other call."""
        func = call.func
        if not (
            isinstance(func, ir.Attr)
            and isinstance(func.base, ir.Call)
            and isinstance(func.base.func, ir.Name)
            and func.base.func.id == "super"
            and frame.stack
        ):
            return None
        return self._functions.get((frame.module.name, frame.stack[-1]))

    def _super_method(self, call: ir.Call, frame: Frame) -> FuncV | None:
        """``super().name(...)`` in a method: the base classes' ``name``, bound to this ``self``."""
        current = self._super_caller(call, frame)
        if current is None or not current.class_name or not current.params:
            return None
        func = call.func
        assert isinstance(func, ir.Attr)
        receiver = frame.env.get(current.params[0].name)
        for base in self._base_classes((frame.module.name, current.class_name)):
            found = self._method(base[0], base[1], func.name)
            if found is not None:
                return FuncV(found[0], found[1], receiver)
        return None

    def _definition_frame(self, module: str) -> Frame:
        """Where a class statement's expressions (bases, attributes) are read: the module's
        names, and no room to follow calls."""
        return Frame(self._modules[module], {}, MAIN_THREAD, (), _MAX_DEPTH - 1, ())

    def _overrides_of_stub(
        self, method: tuple[str, str], name: str
    ) -> list[tuple[str, str, tuple[str, str]]]:
        """For a method that only declares itself (``@abstractmethod``, a body of ``...``,
        ``pass`` or ``raise NotImplementedError``), the project's subclasses of its class that
        define it, with their definition, up to a few (module, class, method)."""
        known = self._stub_overrides.get((method, name))
        if known is not None:
            return known
        function = self._functions[method]
        found = []
        if _declares_only(function):
            owner = (method[0], function.class_name)
            for cls in sorted(self._classes):
                defined = (cls[0], f"{cls[1]}.{name}")
                if defined in self._functions and cls != owner and owner in self._ancestors(cls):
                    found.append((cls[0], cls[1], defined))
        self._stub_overrides[(method, name)] = found if len(found) <= _MAX_OVERRIDES else []
        return self._stub_overrides[(method, name)]

    def _ancestors(self, cls: tuple[str, str]) -> set[tuple[str, str]]:
        seen: set[tuple[str, str]] = set()
        pending = list(self._base_classes(cls))
        while pending and len(seen) < 16:
            current = pending.pop()
            if current not in seen:
                seen.add(current)
                pending.extend(self._base_classes(current))
        return seen

    def _base_classes(self, cls: tuple[str, str]) -> list[tuple[str, str]]:
        if cls not in self._bases:
            self._bases[cls] = []
            info = self._classes.get(cls)
            if info is not None:
                frame = self._definition_frame(cls[0])
                for base in info.bases:
                    value = self._eval(base, frame, PathState())[0]
                    if isinstance(value, ClassV):
                        self._bases[cls].append((value.module, value.qualname))
        return self._bases[cls]

    def _through_getters(self, value: Value, frame: Frame, state: PathState) -> tuple[Value, PathState]:
        """A property's value: ``self.stream`` runs its getter (each one, for an object of
        several classes); any other value as it is."""
        if not all(
            isinstance(option, FuncV)
            and (getter := self._functions.get((option.module, option.qualname))) is not None
            and _is_property(getter)
            for option in options(value)
        ):
            return value, state
        results = []
        for option in options(value):
            assert isinstance(option, FuncV)
            result, state = self._invoke(option, (), (), state, frame, None)
            results.append(result)
        return join(results), state

    def _call(self, call: ir.Call, frame: Frame, state: PathState) -> tuple[Value, PathState]:
        receiver: Value | None = None
        if (
            _spelling(call.func).rsplit(".", 1)[-1] in ("create_task", "ensure_future")
            and call.args
            and self._coroutine_call(call.args[0], frame, state)
        ):
            return UNKNOWN, self._schedule_task(call.args[0], call, frame, state)
        inherited = self._super_method(call, frame)
        if inherited is not None:
            passed, named, state = self._arguments(call, frame, state)
            return self._invoke(inherited, tuple(passed), tuple(named), state, frame, call)
        if isinstance(call.func, ir.Attr):
            # The receiver is evaluated once: its calls may have effects.
            receiver, state = self._eval(call.func.base, frame, state)
            spelled = call.func.base
            if isinstance(spelled, ir.Name) and f"{spelled.id}.{call.func.name}" in frame.env:
                callee = frame.env[f"{spelled.id}.{call.func.name}"]
            else:
                # ``accelerator.Stream()`` where ``Stream`` is a property: what it hands out is called.
                attribute = self._attribute(receiver, call.func, frame)
                callee, state = self._through_getters(attribute, frame, state)
            if isinstance(receiver, Unknown):
                holder = frame.env.get("self")
                excluded = None
                if (
                    isinstance(spelled, ir.Attr)
                    and isinstance(spelled.base, ir.Name)
                    and spelled.base.id == "self"
                    and isinstance(holder, ObjectV)
                ):
                    # ``self.worker.step()``: a wrapped object's method, not the wrapper's own.
                    excluded = (holder.module, holder.qualname)
                callee = self._overrides(call.func.name, receiver.spelling, call, excluded) or callee
        else:
            callee, state = self._eval(call.func, frame, state)
            structs = (
                [
                    kind
                    for side in call.func.operands
                    if isinstance(kind := self._eval(side, frame, state.copy())[0], ClassV)
                ]
                if isinstance(call.func, ir.Operator) and call.func.symbol == "*"
                else []
            )
            if len(structs) == 1:
                # ``(Attributes * n)(attrs)``: a ctypes array of the project's structure holds what
                # it is made from (or one structure to fill, field by field).
                struct = structs[0]
                args, _, state = self._arguments(call, frame, state)
                return SeqV(tuple(args) or (RecordV(struct.qualname, ()),)), state
        args, kwargs, state = self._arguments(call, frame, state)
        method = call.func.name if isinstance(call.func, ir.Attr) else ""
        for key, arg in call.kwargs:
            if key == "out":  # ``torch.index_select(x, 0, i, out=buf)`` writes buf (a copy's, maybe)
                state = self._write(arg, frame, state, call.span, kernel=False)
        keywords = dict(kwargs)
        special = self._special(call, method, receiver, callee, args, keywords, frame, state)
        if special is not None:
            return special
        if (
            frame.thread == MAIN_THREAD
            and not isinstance(callee, (FuncV, ClassV))
            and not _host_only(callee)
            and not _python_work(call, receiver, method)
        ):
            state.launched = self._clock
            entered = self._stream(frame, state)
            # A captured graph launched (``self.graph.replay()``), on a stream the project made.
            replayed = (
                method in GRAPH_LAUNCHES
                and isinstance(receiver, ExternalV)
                and receiver.dotted.endswith("Graph()")
            )
            if replayed and entered is not None and _made_stream_key(entered.key):
                state.writes[f"{_LAUNCHED_ON}{entered.key}"] = (self._clock, call.span.line, entered.key)
        if _array_kernel(callee):
            # ``cupy.maximum(x @ w, 0)`` in ``with compute:`` runs a kernel there: on a stream the
            # project made, that stream is a producer's, even where a copy also runs on it.
            stream = self._stream(frame, state)
            if stream is not None and _made_stream_key(stream.key):
                self._kernel_streams.add(stream.key)
        if (
            method in GRAPH_REPLAYS
            and receiver is not None
            and any(
                isinstance(option, ExternalV) and option.dotted.endswith(GRAPH_TYPE)
                for option in options(receiver)
            )
        ):
            # ``graph.replay()`` launches the captured kernels on the current stream.
            self._kernel_streams.add(self._running_on(frame, state))
        launch_stream = self._launch_stream(call.func, callee, keywords.get("stream"), frame, state)
        if launch_stream is not None and isinstance(callee, FuncV):
            # A project kernel: its body runs with the configuration's stream current, and it
            # may read each buffer it is given there (a load into one must wait for it).
            for value in args:
                if isinstance(value, TensorV) and value.key and value.memory is not Memory.HOST:
                    state.reads[value.key] = (self._clock, call.span.line, launch_stream.key)
            self._kernel_streams.add(launch_stream.key)
            saved = state.streams
            state.streams = (*saved, launch_stream)
            value, state = self._dispatch(callee, tuple(args), tuple(kwargs), call, frame, state)
            state.streams = saved
            return value, state
        if isinstance(callee, Unknown) or (
            isinstance(callee, ExternalV)
            and (
                callee.dotted.endswith("()")
                or launch_stream is not None
                # A registered operator (``torch.ops.vllm.reshape_and_cache(...)``), or a function
                # of the project's own compiled extension (``lmcache.device_ops``, no Python
                # file): a kernel.
                or callee.dotted.startswith("torch.ops.")
                or self._own_extension(callee.dotted)
            )
        ):
            # Code the project does not show (``self.model.forward(batch, kv)``, an instance of
            # a library's class called: a compiled kernel, a module) may write the buffers it is
            # given, on the current stream or the one its launch configuration names.
            # A model or a kernel (not another method of an object the code does not show, such
            # as ``registry.note(kv)``) may also write an unplaced buffer it is given, and the
            # GPU buffers an object it is given holds (the model writing the pool's KV cache).
            computes = launch_stream is not None or self._computes(call, frame)
            # A method only project classes define, none of which matters (``proposer.propose(
            # ids, n)``), computes its result but writes nothing it is given.
            inert = (
                isinstance(callee, Unknown)
                and isinstance(call.func, ir.Attr)
                and self._inert_project_method(call.func.name, call)
            )
            # A model reads its inputs: a buffer this entry point allocated and filled (the
            # batch it packed) is one, unlike the state it writes (a KV cache it keeps or is given).
            model = launch_stream is None and self._model_call(call, frame)
            given = [
                *zip(call.args, args, strict=False),
                # a model's by keyword too (``model.forward(batch, kv_cache=self.kv_pool)``)
                *((expr, keywords[name]) for name, expr in call.kwargs if model and name in keywords),
            ]
            for arg, value in given:
                # A kernel launched with its arguments in a tuple (cupy's ``kernel(grid, block,
                # (pages, kv, n))``) may write each.
                if (isinstance(callee, Unknown) and callee.spelling in _PYTHON_BUILTINS) or inert:
                    break  # a Python builtin (``enumerate(kv_caches)``) launches nothing
                for written, held in _launch_arguments(arg, value):
                    if (
                        model
                        and isinstance(held, TensorV)
                        and held.key in self._fresh
                        and held.key in state.writes
                    ):
                        continue
                    if memory_of(held) not in (None, Memory.HOST) or (
                        computes and isinstance(held, Unknown) and held.spelling
                    ):
                        state = self._write(written, frame, state, call.span, on=launch_stream, launched=True)
                    elif computes and isinstance(held, ObjectV):
                        self._write_held_buffers(held, frame, state, call.span, launch_stream)
        return self._dispatch(callee, tuple(args), tuple(kwargs), call, frame, state)

    def _launch_stream(
        self, func: ir.Expr, callee: Value, given: Value | None, frame: Frame, state: PathState
    ) -> StreamV | None:
        """The stream a kernel launch names, where it runs instead of the current stream: its
        launch configuration's (numba's ``kernel[grid, block, stream](...)``), else for code the
        project does not show, the stream it is given (cupy's ``kernel(grid, block, args,
        stream=s)``)."""
        candidates: list[Value] = []
        if isinstance(func, ir.Index) and isinstance(func.index, ir.Seq) and len(func.index.items) >= 3:
            candidates.append(self._eval(func.index.items[2], frame, state.copy())[0])
        if given is not None and not isinstance(callee, (FuncV, ClassV)):
            candidates.append(given)
        for value in candidates:
            # A number is no stream: a configuration without one, or a count.
            if isinstance(value, (StreamV, Unknown, UnionV)):
                return _opaque_stream(value)
        return None

    def _dispatch(
        self,
        callee: Value,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> tuple[Value, PathState]:
        name = _callee_name(callee)
        if name and _taught(name, self._taught.barrier_functions):
            streams = [a for a in args if isinstance(a, StreamV)]
            for stream in streams:
                state.barriers[stream.key] = self._clock
                state.gaps.pop(stream.key, None)
            if not streams:
                state.ordered_all = self._clock
            return UNKNOWN, state
        if name and _taught(name, self._taught.copy_functions):
            source, destination = [*args, UNKNOWN, UNKNOWN][:2]
            state = self._copy(
                call,
                name.rsplit(".", 1)[-1],
                frame,
                state,
                self._stream(frame, state),
                source,
                destination,
                _root_spelling(call.args[0]) if call.args else "",
                None,
            )
            return UNKNOWN, state
        if isinstance(callee, UnionV):
            # One of several callees runs (two connector classes behind one attribute): each
            # from the same state, the paths merged after.
            results, ends = [], []
            for option in callee.options:
                value, end = self._dispatch(option, args, kwargs, call, frame, state.copy())
                results.append(value)
                ends.append(end)
            return join(results), merge_paths(ends, [None] * len(ends))
        if isinstance(callee, FuncV):
            function = self._functions.get((callee.module, callee.qualname))
            if function is not None and any(
                _spelling(d).endswith("contextmanager") for d in function.decorators
            ):
                env = self._bind(function, callee.bound, args, kwargs, self._modules[callee.module], frame)
                return GeneratorContextV(callee, tuple(env.items())), state
            return self._invoke(callee, (*callee.partial, *args), kwargs, state, frame, call)
        if isinstance(callee, ClassV):
            return self._construct(callee, args, kwargs, call, frame, state)
        if isinstance(callee, ObjectV):
            # Calling an object runs its ``__call__``; a torch module's runs its ``forward``.
            for name in ("__call__", "forward"):
                method = self._method(callee.module, callee.qualname, name)
                if method is not None:
                    bound = FuncV(method[0], method[1], callee)
                    return self._invoke(bound, args, kwargs, state, frame, call)
            return UNKNOWN, state
        if isinstance(callee, LambdaV):
            return self._call_lambda(callee, args, state, frame, call)
        if isinstance(callee, CopyApiV):
            return self._copy_api(
                callee.api, args, {**dict(callee.keywords), **dict(kwargs)}, call, frame, state
            )
        if isinstance(callee, MethodV):
            handled = self._special(
                call, callee.name, callee.receiver, callee, list(args), dict(kwargs), frame, state
            )
            return handled if handled is not None else (UNKNOWN, state)
        if isinstance(callee, ExternalV):
            return self._external(callee.dotted, args, dict(kwargs), call, frame, state)
        if isinstance(callee, Unknown) and callee.spelling:
            return self._external(callee.spelling, args, dict(kwargs), call, frame, state)
        if isinstance(callee, Unknown):
            return UNKNOWN, state  # a callable the code does not name (a class from a registry)
        return _opaque_call("", args, dict(kwargs)), state

    def _construct(
        self,
        cls: ClassV,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> tuple[Value, PathState]:
        info = self._classes[(cls.module, cls.qualname)]
        init = self._method(cls.module, cls.qualname, "__init__")
        fields: list[tuple[str, Value]] = []
        if init is None and info.fields:
            # A record: NamedTuple, dataclass or ctypes structure; fields by position and keyword,
            # the rest their defaults (made where the class is defined, one per record).
            fields = list(zip(info.fields, args, strict=False)) + list(kwargs)
            given = {name for name, _ in fields}
            module = self._modules[cls.module]
            defining = Frame(module, {}, frame.thread, frame.flow, frame.depth, frame.stack)
            for name, default in info.defaults:
                if name not in given:
                    value, state = self._eval(default, defining, state)
                    fields.append((name, value))
            if (cls.module, cls.qualname) not in self._mutating_classes:
                return RecordV(info.qualname, tuple(fields)), state
        # Made in a factory helper (``[[cls() for _ in range(b)] for _ in range(a)]``), one
        # object per call of the helper.
        obj = ObjectV(cls.module, cls.qualname, _made_site(frame, call))
        if obj not in self._instances and len(self._instances) < 4096:
            self._instances[obj] = None
        if init is None:
            # A record whose methods change its fields (``result.copy_done = Event()``): an
            # object, its fields where its methods' assignments join them.
            for name, value in fields:
                self._remember_field(obj, name, value)
            post_init = self._method(cls.module, cls.qualname, "__post_init__")
            if fields and post_init is not None:
                _, state = self._invoke(FuncV(post_init[0], post_init[1], obj), (), (), state, frame, call)
            return obj, state
        memo = self._construction_memo(obj, args, kwargs, frame)
        if memo is not None and self._replayed(memo, state):
            return obj, state
        before = (state.copy(), self._reached(), len(self.host_reads))
        fresh, unwritten, version = set(self._fresh), set(self._unwritten), self._heap_version
        # The heap keys the construction reads, on their own (the root's set is large).
        outer_reads, self._heap_reads = self._heap_reads, set()
        self._constructing[obj] = {}
        try:
            _, state = self._invoke(FuncV(init[0], init[1], obj), args, kwargs, state, frame, call)
        finally:
            self._constructing.pop(obj, None)
            read, self._heap_reads = self._heap_reads, outer_reads
            outer_reads |= read
        if memo is not None and version == self._heap_version:
            self._remember_construction(memo, before, state, read, fresh, unwritten)
        return obj, state

    def _reached(self) -> tuple[int, int, int, int]:
        """How many copies, inherited copies, puts and thread starts the analysis has seen."""
        return (self._copies_reached, self._inherited_copies, self._handoffs_reached, len(self._threads))

    def _note_called(self, key: tuple[str, str]) -> None:
        if key not in self._called:
            self._called.add(key)
            self._called_in_order.append(key)

    def _reportable(self) -> Reportable:
        """What the analysis has seen so far that an entry point's run may report from."""
        return Reportable(
            self._recordable_copies,
            self._handoffs_reached,
            len(self._threads),
            self._inherited_copies,
            self._host_reads_seen,
        )

    def _construction_memo(
        self, obj: ObjectV, args: tuple[Value, ...], kwargs: tuple[tuple[str, Value], ...], frame: Frame
    ) -> tuple[object, ...] | None:
        """What a construction's effects depend on besides the heap: the instance (its class and
        where it is made), its arguments and the thread; None where the arguments cannot be
        told apart (a value holding a mutable container)."""
        key = (obj, args, kwargs, frame.thread, frame.depth)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _replayed(self, memo: tuple[object, ...], state: PathState) -> bool:
        """Apply a construction's effects from an earlier identical one, if it had only effects
        that can be replayed (fields it set, buffers it allocated, code it called outside the
        project) and nothing it read from the heap changed since."""
        found = self._constructions.get(memo)
        if found is None:
            return False
        reads, carried, launched, fresh, unwritten = found
        if any(self._heap_versions.get(key, 0) > version for key, version in reads.items()):
            return False
        self._heap_reads |= reads.keys()
        state.carried = state.carried | carried
        if launched:
            state.launched = self._clock
        self._fresh |= fresh
        self._unwritten |= unwritten
        return True

    def _remember_construction(
        self,
        memo: tuple[object, ...],
        before: tuple[PathState, tuple[int, int, int, int], int],
        after: PathState,
        read: set[tuple[str, str, str]],
        fresh: set[str],
        unwritten: set[str],
    ) -> None:
        """Keep a construction's effects for identical later ones, where it issued no copy,
        barrier, record, write, wait or hand-off (those belong to the path it ran on)."""
        state, reached, host_reads = before
        if (
            reached != self._reached()
            or host_reads != len(self.host_reads)
            or _path_effects(state) != _path_effects(after)
        ):
            return
        reads = {key: self._heap_versions.get(key, 0) for key in read}
        self._constructions[memo] = (
            reads,
            after.carried - state.carried,
            after.launched != state.launched,
            self._fresh - fresh,
            self._unwritten - unwritten,
        )

    def _copy(
        self,
        call: ir.Call,
        form: str,
        frame: Frame,
        state: PathState,
        stream: StreamV | None,
        source: Value,
        destination: Value,
        source_key: str,
        order: SourceOrder | None,
        written: tuple[str, str] = ("", ""),
        asynchronous: bool = True,
        implied_destination: bool = False,
        site: tuple[str, ir.Call] | None = None,
        source_hint: Memory = Memory.UNKNOWN,
    ) -> PathState:
        """A copy launch; ``written`` names the destination buffer (identity, spelling) for host
        reads; ``site``: where the copy is spelt, if not at ``call`` (file, call);
        ``source_hint``: where its copy attributes say the source lives."""
        path, call = site or (frame.module.path, call)
        copy_stream = stream.key if stream is not None else f"current@{frame.thread}"
        self._copies_reached += 1
        unresolved = stream is None or stream.key.startswith("opaque:")
        if stream is not None:
            state.issued[stream.key] = self._clock
            if not (memory_of(source) is Memory.DEVICE and memory_of(destination) is Memory.DEVICE):
                self._copy_streams.add(stream.key)  # a transfer's stream; GPU to GPU is compute
        if not asynchronous and stream is None:
            self._completed(state, copy_stream)  # a blocking copy waits for the current stream
            sides = {memory_of(source), memory_of(destination)}
            if sides == {Memory.DEVICE, Memory.HOST}:
                self._blocking_read(frame, state)  # GPU to host, or host to GPU from pageable memory
            elif Memory.DEVICE in sides and sides != {Memory.DEVICE}:
                # The other side is not placed: from another GPU buffer the copy blocks nothing.
                self._maybe_blocking_read(f"the blocking {form} at line {call.span.line}", frame, state)
        target_memory = memory_of(destination)
        if (
            asynchronous
            and written[0]
            and (target_memory is Memory.HOST or target_memory is None)
            and memory_of(source) is not Memory.HOST
            and (target_memory is Memory.HOST or memory_of(source) is Memory.DEVICE)
        ):
            state.pending[written[0]] = PendingCopy(
                path,
                call.span.line,
                call.span.column,
                form,
                written[1],
                copy_stream,
                self._clock,
            )
            self._recordable_copies += 1  # a host read of its destination may report
        elif (order is not None and order.value != ORDER_STREAM) or (
            # On the thread's current stream in stream order the copy is ordered behind its
            # producer by construction: no rule reports it, and its entry point need not run
            # again for it.
            stream is not None and not (self._fallback and unresolved)
        ):
            self._recordable_copies += 1
        if not self._reporting:
            return state
        # Reached only as a fallback root, its stream not known here: only the order it asks
        # for is judged (the real caller may pass a stream that is ordered).
        order_only = self._fallback and unresolved
        if order_only and (order is None or order.value == ORDER_STREAM):
            return state
        if stream is not None and stream.label in self._taught.producer_streams:
            stream = None  # issued on a configured producer stream: no barrier needed
        key = stream.key if stream is not None else ""
        barrier = state.ordered_since(key) if stream is not None else None
        buffer_key = source.key if isinstance(source, TensorV) else ""
        if isinstance(source, Unknown) and source.spelling:
            buffer_key = f"{_UNPLACED}{source.spelling}"
        writes = [
            found
            for key in (
                source_key,
                buffer_key,
                ANY_BUFFER,
                # (what the caller touches between calls: not buffers the project allocated)
                "" if _allocated_here(source) else _CALLER_BETWEEN_RESUMPTIONS,
            )
            if key and (found := state.writes.get(key))
        ]
        write = max(writes) if writes else None
        if barrier is None and stream is not None:
            # No wait on the producer itself, but on a stream that had waited on the stream that
            # wrote the source, after the write (``default.wait_stream(compute)``, then
            # ``offload.wait_stream(default)``); for a source whose writer is not shown, on every
            # stream the project made that kernels write on, where only those do.
            since = write[0] if write is not None else BEFORE_PATH
            # (a stream kernels write on: another copy's stream is no producer the rules order
            # against)
            writers = (
                ([write[2]] if write[2] not in self._copy_streams or write[2] in self._kernel_streams else [])
                if write is not None
                else sorted(k for k in self._kernel_streams if k not in self._copy_streams)
                if self._written_only_on_made_streams()
                else []
            )
            if writers and all(_joins_reach(state.joined, key, writer, since) for writer in writers):
                barrier = since
        made = state.writes.get(f"{_MADE_ON}{'/'.join(frame.stack)}:{source_key}") if source_key else None
        # Computed on this path by work queued on the copy's own stream, and not written since.
        made_on_copy_stream = (
            made is not None and made[2] == copy_stream and (write is None or write[0] <= made[0])
        )
        # Work the code does not show, launched on this path on the copy's own stream, and
        # no write of the source shown: that work is the likely producer (``graph.replay()``
        # then reading its output back on the replay stream), which stream order covers.
        launched_on_copy_stream = (
            write is None and stream is not None and f"{_LAUNCHED_ON}{stream.key}" in state.writes
        ) or (
            # Last written on this path by work queued on the copy's own stream (a kernel launched
            # there): stream order covers that writer.
            write is not None
            and write[0] >= 0
            and write[2] == copy_stream
            and stream is not None
            and copy_stream in self._kernel_streams
        )
        # Allocated on this path and last written there on the copy's own stream (data copied
        # in as it was made): no other producer to wait for.
        filled_on_copy_stream = (
            write is not None
            and write[2] == copy_stream
            and isinstance(source, TensorV)
            and source.key in self._fresh
            and state.writes.get(source.key) == write
        )
        if write is not None and (
            write[2] == copy_stream
            or (write[2] in self._copy_streams and write[2] not in self._kernel_streams)
        ):
            # Written on the copy's own stream (stream order covers it), or by another copy
            # stream: not the producer this rule orders against.
            write = None
        stale = barrier is not None and write is not None and write[0] > barrier
        # The barrier is a wait on an earlier call's event, and the source is an argument the
        # caller produced for this call (the line of the wait).
        earlier_call_wait = (
            write[1]
            if stale and write is not None and barrier == EARLIER_CALL and write[0] == BEFORE_PATH
            else None
        )
        # A barrier behind other streams (an event recorded on the thread's current stream)
        # while a stream the project made wrote the source: it does not order that write.
        missed_writer = (
            not stale
            and barrier is not None
            and write is not None
            and memory_of(source) is not Memory.HOST
            and _made_stream_key(write[2])
            and (state.synced is None or state.synced < write[0])
            and any(waiter == key and time >= write[0] for waiter, _, time in state.joined)
            and not _joins_reach(state.joined, key, write[2], write[0])
        )
        # A load's destination the producer used (wrote, so also read) after the barrier: the
        # barrier does not cover those kernels, and the load may land while they run.
        used_at = [
            found
            for key in (
                destination.key if isinstance(destination, TensorV) else "",
                ANY_BUFFER,
                "" if _allocated_here(destination) else _CALLER_BETWEEN_RESUMPTIONS,
            )
            for uses in (state.writes, state.reads)
            if key and (found := uses.get(key))
        ]
        used = max(used_at) if used_at else None
        if used is not None and not self._compute_use(used, copy_stream):
            used = None
        # A kernel on this path that read the destination itself (the previous turn's scatter
        # out of a staging buffer), also where this copy's own write is the latest use.
        read = state.reads.get(destination.key) if isinstance(destination, TensorV) else None
        if (
            read is not None
            and read[0] > BEFORE_PATH
            and self._compute_use(read, copy_stream)
            and (used is None or read > used)
        ):
            used = read
        used_after_barrier = None
        if barrier is not None and used is not None and used[0] > barrier:
            used_after_barrier = used[1]

        current = stream is None or stream.current_of == MAIN_THREAD or self._sole_producers(stream)
        producer_work = max((found[0] for found in (write, used) if found is not None), default=BEFORE_PATH)
        barrier_site, no_barrier_site = self._barrier_site(stream, frame, state, producer_work)
        self.runs.append(
            CopyRun(
                path=path,
                span=call.span,
                lines=call.lines,
                form=form,
                function=f"{frame.module.name}:{frame.stack[-1]}" if frame.stack else frame.module.name,
                source_hint=source_hint,
                stream=None if current else stream,
                source_memory=memory_of(source) or Memory.UNKNOWN,
                destination_memory=memory_of(destination) or Memory.UNKNOWN,
                order=order,
                ordered=barrier is not None and not stale and not missed_writer,
                gap=state.gaps.get(key, ()) if barrier is None else (),
                stale_write_line=write[1]
                if stale and write is not None and earlier_call_wait is None
                else None,
                earlier_call_wait=earlier_call_wait,
                # For a load, ordered behind the producer's work up to that call, as a barrier a
                # previous call left is.
                ordered_by_earlier_call=earlier_call_wait is not None,
                missed_writer_line=write[1] if missed_writer and write is not None else None,
                destination_used_line=used_after_barrier,
                host_synced=state.synced is not None and (write is None or write[0] < state.synced),
                maybe_host_synced=state.maybe_synced[1]
                if state.maybe_synced is not None and (write is None or write[0] < state.maybe_synced[0])
                else "",
                maybe_ordered=maybe_ordered[1]
                if barrier is None
                and (maybe_ordered := state.maybe_ordered.get(key)) is not None
                and (write is None or write[0] < maybe_ordered[0])
                else "",
                ordered_elsewhere=self._ordered_elsewhere(stream, frame) if barrier is None else "",
                flow=frame.flow,
                thread=frame.thread,
                resolved_stream=stream is not None and not stream.key.startswith("opaque:"),
                order_only=order_only,
                barrier_site=barrier_site,
                no_barrier_site=no_barrier_site,
                # Kernels of this call that used the destination came after those calls' barrier;
                # so did the caller's, of a destination an entry point returns to it.
                earlier_calls=tuple(sorted(state.carried))
                if used is None
                and not (isinstance(destination, TensorV) and destination.key in self._handed_to_callers)
                else (),
                # Allocated by this entry point, and no kernel has used it since.
                fresh_destination=isinstance(destination, TensorV)
                and destination.key in self._fresh
                and used is None,
                unwritten_source=(
                    isinstance(source, TensorV) and source.key in self._unwritten and write is None
                )
                or made_on_copy_stream
                or filled_on_copy_stream
                or launched_on_copy_stream,
                implied_destination=implied_destination,
                blocking=not asynchronous,
                destination_from_caller=isinstance(destination, Unknown) and destination.from_caller,
                destination_mapped=_wrapped_at_raw_address(destination),
                destination_handed_out=_handed_out(destination),
                destination_pooled=isinstance(destination, TensorV) and destination.key in self._pooled,
            )
        )
        return state

    def _schedule_task(self, coroutine: ir.Expr, call: ir.Call, frame: Frame, state: PathState) -> PathState:
        """``asyncio.create_task(obj.run())``: the coroutine runs later on this thread, in the
        state the task was made in, after what the current entry point does."""
        assert isinstance(coroutine, ir.Call)
        target, state = self._eval(coroutine.func, frame, state)
        arguments: list[Value] = []
        for arg in coroutine.args:
            value, state = self._eval(arg, frame, state)
            arguments.append(value)
        step = FlowStep(frame.module.path, call.span.line, call.span.column, "schedules a task")
        self._threads.append(
            ThreadStart(
                target,
                tuple(arguments),
                state.copy(),
                self._flow_to(frame, step),
                "task",
                self._fallback,
                True,
            )
        )
        return state

    def _note_pooled(self, frame: Frame, site: str) -> None:
        if frame.several:
            self._pooled.add(site)

    def _host_waited_on(self, event: Value) -> None:
        if isinstance(event, EventV) and event.key in self._pooled:
            self._pooled_waited = True

    def _computed(
        self, result: TensorV, frame: Frame, site: ir.Call | ir.Operator, state: PathState
    ) -> TensorV:
        """A new GPU tensor computed here (``a @ b``, ``torch.cat(parts)``): a buffer of its own,
        written now on the stream the work runs on."""
        key = _buffer_site("made", frame, site)
        line = site.span.line if site.span is not None else 0
        state.writes[key] = (self._clock, line, self._running_on(frame, state))
        return replace(result, key=key, address=False)

    def _fresh_buffer(self, memory: Memory, site: str, allocator: str, state: PathState) -> TensorV:
        """A buffer this entry point allocates: no kernel has read it before its first copy.
        ``empty`` and its kin leave it unwritten; the rest fill it on the current stream. Made
        again (a loop's next turn), it is a new buffer: the uses of the one made before at this
        site are not its uses."""
        self._fresh.add(site)
        state.writes.pop(site, None)
        state.reads.pop(site, None)
        if allocator.startswith(("empty", "new_empty")) or allocator in DEVICE_ALLOCATORS:
            self._unwritten.add(site)
        return TensorV(memory, site)

    def _coroutine_call(self, expr: ir.Expr, frame: Frame, state: PathState) -> bool:
        """Whether an expression calls a project ``async def``."""
        if not isinstance(expr, ir.Call) or not isinstance(expr.func, (ir.Name, ir.Attr)):
            return False
        called = expr.func.id if isinstance(expr.func, ir.Name) else expr.func.name
        if called not in self._async_names:
            return False  # the common case, decided without evaluating the callee
        callee, _ = self._eval(expr.func, frame, state.copy())
        if not isinstance(callee, FuncV):
            return False
        function = self._functions.get((callee.module, callee.qualname))
        return function is not None and function.is_async

    def _compute_use(self, use: tuple[int, int, str], copy_stream: str) -> bool:
        """A use of a buffer by work on another stream than the copy's, and no other copy's."""
        other_copy = use[2] in self._copy_streams and use[2] not in self._kernel_streams
        return use[2] != copy_stream and not other_copy

    def _blocking_read(self, frame: Frame, state: PathState) -> None:
        """A copy or read that blocks the host on the current stream: on the requesting thread
        it waits for the producer's work so far, which orders every later launch behind it."""
        if frame.thread == MAIN_THREAD and self._stream(frame, state) is None:
            state.synced = self._clock
            self._completed(state, f"current@{frame.thread}")

    def _maybe_blocking_read(self, what: str, frame: Frame, state: PathState) -> None:
        """A read that blocks the host if its tensor is on the GPU, which the code does not
        show: copies on the current stream before it may have completed."""
        if frame.thread != MAIN_THREAD or self._stream(frame, state) is not None:
            return
        state.maybe_synced = (
            self._clock,
            f"{what} reads a tensor the code does not place after the producer's writes: "
            "if it is on the GPU, the host waited for them",
        )
        current = f"current@{frame.thread}"
        state.pending = {
            key: copy if copy.maybe_waited or copy.stream_key != current else replace(copy, maybe_waited=what)
            for key, copy in state.pending.items()
        }

    def _barrier_site(
        self, stream: StreamV | None, frame: Frame, state: PathState, producer_work: int
    ) -> tuple[tuple[str, Span, str, tuple[str, str]] | None, str]:
        """Where a barrier can go mechanically (path, ``with`` statement, stream spelling,
        device module), or "" and why nowhere: before the ``with`` that entered the copy's
        stream, in the copy's function or one it runs under, on the requesting thread. That
        function's first block to enter the stream unordered on this path comes first: a barrier
        before it orders the later blocks too, unless the producer touched the copy's buffers
        since (``producer_work``: when it last did)."""
        if stream is None or frame.thread != MAIN_THREAD:
            return None, ""  # the rule says why: it runs on another thread
        entered = stream.entered_at
        current = state.streams[-1] if state.streams else None
        if entered is None and current is not None and current.key == stream.key:
            entered = current.entered_at  # the block's stream, also passed to the copy
        if entered is None:
            if current is not None and current.key == stream.key:
                return None, "`set_stream` made the stream current: no stream block to put a barrier before"
            return None, "the copy is given its stream as an argument, not run inside a block that enters it"
        first = state.unordered_entries.get(stream.key)
        if (
            first is not None
            and first[0].spelling
            and (first[0].path, first[0].stack) == (entered.path, entered.stack)
            and first[1] > producer_work
            and state.ordered_since(stream.key) is None
        ):
            entered = first[0]
        if not entered.spelling:
            return None, entered.unspelt
        if entered.stack != frame.stack[: len(entered.stack)]:
            return None, (
                f"the stream block is in `{entered.stack[-1]}`, which the copy does not run under "
                "(a context manager that yields to it)"
            )
        if entered.stack and entered.stack[-1].rsplit(".", 1)[-1] in self._passed:
            return None, (
                f"`{entered.stack[-1]}` is passed as a value (a callback): it may run on another "
                "thread, whose current stream is not the compute stream"
            )
        return (entered.path, entered.span, entered.spelling, entered.device_api), ""

    def _current(self, frame: Frame, state: PathState, explicit: bool = False) -> StreamV:
        if not explicit and state.streams:
            return state.streams[-1]
        return StreamV(f"current@{frame.thread}", "torch.cuda.current_stream()", frame.thread)

    def _stream(self, frame: Frame, state: PathState) -> StreamV | None:
        if state.streams and state.streams[-1].current_of != MAIN_THREAD:
            return state.streams[-1]
        if frame.thread != MAIN_THREAD and not state.streams:
            return self._current(frame, state)
        return None

    def _is_producer(self, producer: Value, waiter: StreamV, requester: str = MAIN_THREAD) -> bool:
        """Whether ``producer`` is the stream the path's data was produced on; ``requester``:
        the thread that handed the path its work, whose current stream that is."""
        if isinstance(producer, Unknown) and producer.spelling:
            producer = _opaque_stream(producer) or producer  # ``s.wait_stream(s)`` orders nothing
        if isinstance(producer, StreamV):
            if producer.key == waiter.key:
                return False
            if producer.label in self._taught.producer_streams:
                return True
            if producer.current_of:
                # The requesting thread's current stream, unless every kernel that writes GPU
                # memory runs on streams the project made (``with compute:`` around them all);
                # or a thread's own, where that thread launches the kernels (a worker loop that
                # runs the model's forward).
                handed = (
                    producer.current_of in (MAIN_THREAD, requester) or producer.key in self._kernel_streams
                )
                return handed and not self._written_only_on_made_streams()
            if producer.key.startswith("opaque:"):
                return True  # a stream we cannot tell apart from the producer
            if producer.key.startswith(_DEFAULT_UNDER):
                under = producer.key.removeprefix(_DEFAULT_UNDER)
                # Under a copy stream the producer's kernels ran on the default stream; under a
                # stream kernels run on (a compute stream that also copies), they ran there.
                return under == waiter.key or (
                    under in self._copy_streams and under not in self._kernel_streams
                )
            if producer.key.startswith(_DISPLACED_DEFAULT):
                return False  # the producer's kernels run on the stream set in its place
            # A stream the project made that no copy runs on is a compute stream: kernels run
            # there (``with compute:`` in cupy, ``kernel[grid, block, compute]`` in numba).
            return self._is_compute_stream(producer)
        return True

    def _sole_producers(self, stream: StreamV) -> bool:
        """Kernels run on this stream, and GPU memory is written only on streams the project made,
        never on a thread's current one (cupy's ``with compute:`` around every kernel): a copy on
        it follows them."""
        return stream.key in self._kernel_streams and not self._written_on_current_streams()

    def _written_only_on_made_streams(self) -> bool:
        """Kernels write GPU memory only on streams the project made, one of them a stream no
        copy runs on (a compute stream, not only a copy stream's own scratch work)."""
        made_compute = any(key not in self._copy_streams for key in self._kernel_streams)
        return made_compute and not self._written_on_current_streams()

    def _written_on_current_streams(self) -> bool:
        return any(key.startswith("current@") for key in self._kernel_streams | self._copied_into_on)

    def _is_compute_stream(self, stream: StreamV) -> bool:
        """A stream the project made and runs kernels on (or no copies): a producer's stream."""
        made = not stream.current_of and not stream.key.startswith(
            ("opaque:", _DEFAULT_UNDER, _DISPLACED_DEFAULT)
        )
        return made and (stream.key not in self._copy_streams or stream.key in self._kernel_streams)

    def _wraps_a_raw_copy(self, function: ir.Function) -> bool:
        found = self._raw_copy_wrappers.get(id(function))
        if found is None:
            found = self._raw_copy_wrappers[id(function)] = _wraps_a_raw_copy(function)
        return found

    def _ordered_elsewhere(self, stream: StreamV | None, frame: Frame) -> str:
        """Where a method of the object's class that this entry point did not enter makes the
        stream the copy runs on (one of its fields, ``self.<field>``) wait for the current stream,
        read off the code: a call at another time may have ordered it behind the compute stream
        (``__add_grad_to_ipg_bucket``'s ``wait_stream(current_stream())`` before the epilogue's
        copies)."""
        holder = frame.env.get("self")
        if stream is None or not isinstance(holder, ObjectV) or not stream.label.startswith("self."):
            return ""
        field = stream.label.removeprefix("self.")
        cls = (holder.module, holder.qualname)
        if cls not in self._waits_by_field:
            found: dict[tuple[str, str], str] = {}
            for (module, qualname), function in self._functions.items():
                if (module, function.class_name) != cls or not function.params:
                    continue
                owner = function.params[0].name
                for call in calls_in(function.body):
                    base = call.func.base if isinstance(call.func, ir.Attr) else None
                    waited = call.args[0] if call.args else None
                    if (
                        isinstance(call.func, ir.Attr)
                        and call.func.name == "wait_stream"
                        and isinstance(base, ir.Attr)
                        and isinstance(base.base, ir.Name)
                        and base.base.id == owner
                        # on the thread's current stream, the compute stream where it runs
                        and isinstance(waited, ir.Call)
                        and isinstance(waited.func, (ir.Attr, ir.Name))
                        and _spelling(waited.func).rpartition(".")[2] in CURRENT_STREAM
                    ):
                        where = f"`{qualname}` ({self._modules[module].path}:{call.span.line})"
                        found.setdefault((base.name, qualname), where)
            self._waits_by_field[cls] = found
        return next(
            (
                where
                for (waiting, method), where in sorted(self._waits_by_field[cls].items())
                if waiting == field and method not in self._entered_by_root
            ),
            "",
        )

    def _note_record(self, event: str, stream: Value | None) -> None:
        on = stream.key if isinstance(stream, StreamV) else ""  # "": a stream not resolved here
        self._recorded_on.setdefault(event, set()).add(on)
        if not self._constructors_running:
            self._recorded_by_methods.setdefault(event, set()).add(on)

    def _recorded_only_off_the_producer(self, event: str, waiter: StreamV) -> bool:
        """Every record of the event the analysis saw outside constructors (a constructor's
        record is where the event starts, not where each step leaves it) is on a stream copies
        run on (another transfer's completion, or the waiter's own earlier one), or on a thread's
        current stream where every kernel runs on streams the project made (cupy's ``fence()``
        after the ``with compute:`` block, on the null stream), none on the producer: waiting on
        it orders behind no kernel."""
        streams = self._recorded_by_methods.get(event) or self._recorded_on.get(event, set())
        return bool(streams) and all(on and self._off_the_producer(on, waiter) for on in streams)

    def _off_the_producer(self, stream: str, waiter: StreamV) -> bool:
        if stream.startswith("current@"):
            return self._written_only_on_made_streams()
        return stream == waiter.key or (stream in self._copy_streams and stream not in self._kernel_streams)

    def _wait_event(
        self,
        waiter: StreamV,
        event: Value,
        state: PathState,
        spelled: str = "",
        at: Frame | None = None,
        line: int = 0,
    ) -> PathState:
        """``waiter`` waits on ``event``, which the code spells ``spelled`` there (in frame ``at``,
        at ``line``)."""
        if isinstance(event, UnionV) and all(isinstance(o, (EventV, ConstV)) for o in event.options):
            # One of several events (an entry of a list whose entries were recorded at different
            # places): a barrier only where each of them that is recorded somewhere is one.
            events = [
                option
                for option in event.options
                if isinstance(option, EventV)
                and (option.key.startswith("opaque:") or option.key in self._recorded_on)
            ]
            if events:
                ends = [
                    self._wait_event(waiter, option, state.copy(), spelled, at, line) for option in events
                ]
                return merge_paths(ends, [None] * len(ends))
        if (
            isinstance(event, EventV)
            and not event.key.startswith("opaque:")
            and event.key not in self._recorded_on
        ):
            # Made here and recorded nowhere the analysis could tell, unless it was recorded
            # through the same field of an object the analysis did not place (``lease.done``
            # recorded on a lease taken from a queue): then it is that event.
            field = spelled.rpartition(".")[2]
            same_field = [
                key
                for key in self._recorded_on
                if field and key.startswith("opaque:") and "." in key and key.rpartition(".")[2] == field
            ]
            if not same_field:
                return state  # waiting on an event recorded nowhere orders nothing
            event = EventV(min(same_field), spelled)
        if isinstance(event, EventV) and event.key in state.unrecorded:
            return state  # made on this path and not recorded yet (recorded after a hand-off)
        if isinstance(event, EventV):
            recorded_on, time = state.records.get(event.key, (None, BEFORE_PATH))
            if at is not None and self._made_in_an_earlier_call(event.key, at, state):
                # This entry point makes a new one each call: the event waited on is an earlier
                # call's, recorded before its caller produced the arguments of this call (kept
                # among the path's writes, before the path began).
                time = EARLIER_CALL
                root = self._functions[self._running_root]
                for param in root.params[1 if root.class_name else 0 :]:
                    state.writes.setdefault(
                        f"{_UNPLACED}{param.name}", (BEFORE_PATH, line, f"current@{at.thread}")
                    )
                # So did the caller's kernels between the two calls, in the buffers they reach
                # (the model writing the KV cache the object was given).
                state.writes.setdefault(
                    _CALLER_BETWEEN_RESUMPTIONS, (BEFORE_PATH, line, f"current@{at.thread}")
                )
            used_since = self._used_after_record.get(event.key) if self._reporting else None
            if used_since and event.key not in state.records and at is not None:
                # Recorded by an earlier call before kernels of that call used these buffers:
                # the wait orders nothing after the record (kept as uses before the path began).
                time = EARLIER_CALL
                for buffer, stream_key in used_since:
                    state.reads.setdefault(buffer, (BEFORE_PATH, line, stream_key))
            if recorded_on is not None and recorded_on.key != waiter.key:
                state.joined = state.joined | {(waiter.key, recorded_on.key, time)}
            if (
                event.key not in state.records and not self._recorded_only_off_the_producer(event.key, waiter)
            ) or (recorded_on is not None and self._is_producer(recorded_on, waiter, state.requester)):
                state.barriers[waiter.key] = max(state.barriers.get(waiter.key, time), time)
                state.gaps.pop(waiter.key, None)
            elif recorded_on is not None and recorded_on.key != waiter.key and event.key in state.horizons:
                # Recorded on a stream that was itself ordered behind the producer at the record
                # (a store's completion event, the store having waited for compute): the waiter
                # is ordered as far as that stream was then.
                behind = state.horizons[event.key]
                state.barriers[waiter.key] = max(state.barriers.get(waiter.key, behind), behind)
                state.gaps.pop(waiter.key, None)
        elif not isinstance(event, ConstV):
            state.barriers[waiter.key] = max(state.barriers.get(waiter.key, BEFORE_PATH), BEFORE_PATH)
            state.gaps.pop(waiter.key, None)
        return state

    def _made_in_an_earlier_call(self, event: str, frame: Frame, state: PathState) -> bool:
        """Whether an event waited on here, on the requesting thread, is one this entry point
        makes afresh on each call, and not on this path so far: then an earlier call made the
        one waited on (``self.events[i] = e = Event(); e.record()``, waited on next call)."""
        return (
            self._reporting
            and frame.thread == MAIN_THREAD
            and event not in state.records
            and event not in state.unrecorded
            and self._running_root in self._events_made_by.get(event, ())
        )

    def _note_event_made(self, frame: Frame, site: str) -> None:
        if frame.thread == MAIN_THREAD:
            self._events_made_by.setdefault(site, set()).add(self._running_root)

    def _step(self, frame: Frame, span: Span, message: str) -> FlowStep:
        return FlowStep(frame.module.path, span.line, span.column, message)

    def _flow_to(self, frame: Frame, step: FlowStep) -> tuple[FlowStep, ...]:
        """The path to ``step``, a step out of ``frame``'s function. A path out of an entry
        point starts at that function's name: the outermost function on the producing side,
        where a barrier before the hand-off or the call belongs."""
        function = (
            self._functions.get((frame.module.name, frame.stack[0]))
            if not frame.flow and len(frame.stack) == 1
            else None
        )
        if function is None:
            # Not out of an entry point, or a frame read in another module than its function's
            # (a lambda, a dataclass field's default): the path goes on as it is.
            return (*frame.flow, step)
        return (entry_step(frame.module.path, function.span, function.qualname, _the(frame.thread)), step)

    # The API handlers answer these (kvguard.lint.handlers); the interpreter composes them.
    def _special(
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
        raise NotImplementedError

    def _external(
        self,
        dotted: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> tuple[Value, PathState]:
        raise NotImplementedError

    def _copy_api(
        self,
        api: str,
        args: tuple[Value, ...] | list[Value],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> tuple[Value, PathState]:
        raise NotImplementedError

    def _relevance(self) -> None:
        raise NotImplementedError


def _handed_out(value: Value) -> bool:
    """What a call into code the analysis does not follow returned, or part of it
    (``backend.allocate(shape).tensor``): where that memory lives is not shown."""
    return all(isinstance(option, ExternalV) and "()" in option.dotted for option in options(value))


def _wrapped_at_raw_address(value: Value) -> bool:
    """Every tensor the value may be is memory the code wraps at a raw address (a field that
    also holds None, once closed, is still that memory)."""
    tensors = [option for option in options(value) if isinstance(option, TensorV)]
    return bool(tensors) and all(tensor.mapped for tensor in tensors)


def _keep_returned_streams_ordered(merged: PathState, exits: list[PathState], returned: list[Value]) -> None:
    """A helper that returns one stream or another (``return current`` where no side stream is
    wanted, ``side.wait_stream(current); return side`` where one is): the stream it returns is
    as the paths that return it left it, whatever the other paths did to it."""
    streams = [value for value in returned if isinstance(value, StreamV)]
    if len(streams) != len(returned) or len({stream.key for stream in streams}) < 2:
        return
    for key in {stream.key for stream in streams}:
        times = [
            end.ordered_since(key) for end, stream in zip(exits, streams, strict=True) if stream.key == key
        ]
        if all(time is not None for time in times):
            merged.barriers[key] = min(time for time in times if time is not None)
            merged.gaps.pop(key, None)


def _made_within(key: str, path: str, span: Span) -> bool:
    """Whether an object keyed by where it was made (``path:line:column``) was made in ``span``."""
    if not key.startswith(f"{path}:"):
        return False
    line = key[len(path) + 1 :].partition(":")[0]
    return line.isdigit() and span.line <= int(line) <= span.end_line


def _names_driver_entry_point(value: Value) -> bool:
    return isinstance(value, CopyApiV) or (
        isinstance(value, ExternalV) and value.dotted.rsplit(".", 1)[-1] in DRIVER_ENTRY_POINTS
    )


def _array_kernel(callee: Value) -> bool:
    """A function of cupy that computes on the device (not an allocation, a copy, a kernel's
    definition, nor a stream, event or memory API of ``cupy.cuda``)."""
    if not isinstance(callee, ExternalV):
        return False
    module, _, name = callee.dotted.partition(".")
    return (
        module in CUPY_MODULES
        and bool(name)
        and "." not in name
        and name not in ALLOCATORS | LIKE_ALLOCATORS | PINNED_ALLOCATORS | CUPY_NON_COMPUTING
    )


# What a comprehension's list holds as distinct values (not buffers, which one allocation
# site stands for).
_HELD_IN_LISTS = (StreamV, EventV, ObjectV, FuncV, QueueV, ClassV, RecordV)


def _python_work(call: ir.Call, receiver: Value | None, method: str) -> bool:
    """A method of a Python container (``pending.clear()``), a built-in that counts or pairs
    (``range(n)``) or the making of a built-in exception (``raise RuntimeError(...)``): no
    device work."""
    if isinstance(receiver, (SeqV, ConstV)) or (
        isinstance(receiver, RecordV) and receiver.type_name == "dict"
    ):
        return method in BUILTIN_METHODS
    if not isinstance(call.func, ir.Name):
        return False
    kind = getattr(builtins, call.func.id, None)
    return call.func.id in _BOOKKEEPING_BUILTINS or (
        isinstance(kind, type) and issubclass(kind, BaseException)
    )


# Built-ins that only count, pair or inspect what they are given (no tensor operation runs).
_BOOKKEEPING_BUILTINS = frozenset(
    {"range", "len", "enumerate", "zip", "isinstance", "issubclass", "hasattr", "id"}
)


def _host_only(callee: Value) -> bool:
    """A function of a standard module that runs on the host alone (``logger.debug``)."""
    return isinstance(callee, ExternalV) and callee.dotted.partition(".")[0] in HOST_ONLY_MODULES


def _launch_arguments(arg: ir.Expr, value: Value) -> list[tuple[ir.Expr, Value]]:
    """An argument of an opaque call, or each element of a tuple written out in it."""
    if isinstance(arg, ir.Seq) and isinstance(value, SeqV) and len(arg.items) == len(value.items):
        return list(zip(arg.items, value.items, strict=True))
    return [(arg, value)]


def _definition_site(function: ir.Function) -> ir.Call:
    """A call standing for a function's definition (where its decorators apply to it)."""
    span = function.span
    return ir.Call(ir.Name(function.name, span), (), (), span, (span.line, span.line))


def _allocated_here(value: Value) -> bool:
    """A buffer the project allocated (its allocation site known)."""
    return isinstance(value, TensorV) and value.key.startswith("alloc@")


def _made_stream_key(key: str) -> bool:
    """A stream the project made (not a thread's current or default one, nor one unresolved)."""
    return bool(key) and not key.startswith(("current@", "opaque:", _DEFAULT_UNDER, _DISPLACED_DEFAULT))


def _iterated_calls(iterable: ir.Expr) -> list[ir.Call]:
    """The calls a ``for`` loop iterates: its iterable, or those a built-in that iterates its
    arguments as it goes is given (``enumerate(gen())``, ``zip(a(), b())``)."""
    if not isinstance(iterable, ir.Call):
        return []
    func = iterable.func
    if isinstance(func, ir.Name) and func.id in _LAZY_ITERATORS:
        return [arg for arg in iterable.args if isinstance(arg, ir.Call)]
    return [iterable]


# Built-ins that iterate their arguments as they are iterated.
_LAZY_ITERATORS = frozenset({"enumerate", "zip", "reversed", "iter"})


def _joins_reach(
    joined: frozenset[tuple[str, str, int]], waiter: str, target: str, since: int, until: float = float("inf")
) -> bool:
    """Whether ``waiter`` waited, between ``since`` and ``until``, on ``target`` or on a stream
    that had waited on it (each wait covering the other's work up to its time)."""
    frontier = [(waiter, until)]
    seen = {waiter}
    while frontier:
        stream, before = frontier.pop()
        for waiting, waited, time in joined:
            if waiting == stream and since <= time <= before and waited not in seen:
                if waited == target:
                    return True
                seen.add(waited)
                frontier.append((waited, time))
    return False


def _combined_containers(operands: list[Value]) -> Value:
    """What an operator on Python containers gives: a dict with both dicts' entries (the
    right one's winning), or a sequence of every element the operands hold."""
    if len(operands) == 2 and all(isinstance(v, RecordV) and v.type_name == "dict" for v in operands):
        left, right = operands
        assert isinstance(left, RecordV) and isinstance(right, RecordV)
        kept = tuple((key, value) for key, value in left.fields if right.get(key) is None)
        return RecordV("dict", kept + right.fields)
    items: list[Value] = []
    for value in operands:
        for option in options(value):
            if isinstance(option, SeqV):
                items.extend(option.items)
            elif isinstance(option, RecordV):
                items.extend(field for _, field in option.fields)
            elif not isinstance(option, ConstV):  # a repeat count, not an element
                items.append(option)
    unique: list[Value] = []
    for item in items:
        if item not in unique:
            unique.append(item)
    return SeqV(tuple(unique))


def _only_addresses(value: Value) -> bool:
    """An address (``int(ptr) + offset``), on every path that gives a tensor: reading it reads
    none of the buffer."""
    tensors = [option for option in options(value) if memory_of(option) is not None]
    return bool(tensors) and all(isinstance(option, TensorV) and option.address for option in tensors)


# Pending copies kept again under their container's identity (``ENTRY_OF + identity``).
ENTRY_OF = "entry of "


def _note_truth(test: ir.Expr, value: bool, env: dict[str, Value]) -> None:
    """On the path where ``test`` was ``value``: what that says of the names it tests."""
    if isinstance(test, (ir.Name, ir.Attr)):
        env[f"{TRUTH_PREFIX}{_spelling(test)}"] = ConstV(value, _spelling(test), "", None)
    elif isinstance(test, ir.Not):
        _note_truth(test.operand, not value, env)
    elif isinstance(test, ir.Or) and not value:
        _note_truth(test.left, False, env)
        _note_truth(test.right, False, env)


def _known_truth(test: ir.Expr, env: dict[str, Value]) -> bool | None:
    """What the paths' earlier tests say ``test`` is here, if they decide it."""
    if isinstance(test, (ir.Name, ir.Attr)):
        known = env.get(f"{TRUTH_PREFIX}{_spelling(test)}")
        return known.value if isinstance(known, ConstV) and isinstance(known.value, bool) else None
    if isinstance(test, ir.Not):
        inner = _known_truth(test.operand, env)
        return None if inner is None else not inner
    if isinstance(test, ir.Or):
        sides = (_known_truth(test.left, env), _known_truth(test.right, env))
        if True in sides:
            return True
        return False if sides == (False, False) else None
    return None


def _truths_differ(first: dict[str, Value], second: dict[str, Value], tested: set[str]) -> bool:
    return any(first.get(f"{TRUTH_PREFIX}{name}") != second.get(f"{TRUTH_PREFIX}{name}") for name in tested)


def _tested_spellings(statements: Sequence[ir.Stmt]) -> set[str]:
    """The names and fields ``if`` statements among these test, directly or under ``not`` /
    ``or``."""
    found: set[str] = set()

    def tested(test: ir.Expr) -> None:
        if isinstance(test, (ir.Name, ir.Attr)):
            found.add(_spelling(test))
        elif isinstance(test, ir.Not):
            tested(test.operand)
        elif isinstance(test, ir.Or):
            tested(test.left)
            tested(test.right)

    for statement in statements:
        if isinstance(statement, ir.If):
            tested(statement.test)
        elif isinstance(statement, ir.Loop) and statement.target is not None:
            tested(statement.iter)  # ``for op in plan.offloads:`` runs no turn where it is empty
    return found


def _with_field(holder: Value, name: str, value: Value) -> RecordV:
    """A struct with one field set: the record it was, or a new one for a struct the code does
    not spell (``attrs = CUmemcpyAttributes()``)."""
    fields = dict(holder.fields) if isinstance(holder, RecordV) else {}
    fields[name] = value
    return RecordV(holder.type_name if isinstance(holder, RecordV) else "", tuple(fields.items()))


def _python_container(value: Value) -> bool:
    """A dict or list the code made, holding no buffer it places (what it holds may be
    unknown): storing into it is bookkeeping on the host."""
    held = options(value)
    made = [option for option in held if isinstance(option, (SeqV, RecordV))]
    others = [option for option in held if not isinstance(option, (SeqV, RecordV))]
    unplaced = all(
        isinstance(option, TensorV) and option.memory is Memory.UNKNOWN and not option.key
        for option in others
    )
    return bool(made) and unplaced and all(memory_of(option) is None for option in made)


def _table_name(expr: ir.Expr) -> str:
    """The local name a subscript target writes into: ``ptrs`` in ``ptrs[:] = ...`` and
    ``ptrs.numpy()[:] = ...``."""
    if isinstance(expr, ir.Call) and isinstance(expr.func, ir.Attr) and expr.func.name == "numpy":
        expr = expr.func.base
    return expr.id if isinstance(expr, ir.Name) else ""


# Methods whose result shares its receiver's memory (a write through it writes the receiver).
_ALIASING_VIEWS = frozenset({"numpy", "view", "view_as", "reshape", "flatten", "ravel", "narrow"})


def _view_base(expr: ir.Expr) -> str:
    """The local name whose memory an expression views: ``ptrs`` in ``ptrs[a:b].numpy()``."""
    while True:
        if isinstance(expr, ir.Index):
            expr = expr.base
        elif (
            isinstance(expr, ir.Call) and isinstance(expr.func, ir.Attr) and expr.func.name in _ALIASING_VIEWS
        ):
            expr = expr.func.base
        else:
            return expr.id if isinstance(expr, ir.Name) else ""


def _fill_table(frame: Frame, table: str, addresses: Value) -> None:
    """A host table now holds addresses, and so do the tensors it is a view of."""
    seen: set[str] = set()
    while table and table not in seen and isinstance(frame.env.get(table), TensorV):
        seen.add(table)
        frame.env[table] = addresses
        table = frame.views.get(table, "")


def _spelt_pairs(value: Value) -> bool:
    """A few (key, value) pairs of a dict the code spells, its ``items()``."""
    return (
        isinstance(value, SeqV)
        and 0 < len(value.items) <= _SPELT_RANGE
        and all(
            isinstance(item, SeqV) and len(item.items) == 2 and isinstance(item.items[0], ConstV)
            for item in value.items
        )
    )


def _spelt_rows(loop: ir.Loop) -> bool:
    """A loop that unpacks rows the code spells in place (``for host, dev in ((h_q, d_q),
    (h_s, d_s)):``): each turn has its own row."""
    target, rows = loop.target, loop.iter
    return (
        isinstance(target, ir.Seq)
        and isinstance(rows, ir.Seq)
        and 0 < len(rows.items) <= _SPELT_RANGE
        and not rows.keys
        and all(isinstance(row, ir.Seq) and len(row.items) == len(target.items) for row in rows.items)
    )


def _registers(statements: Sequence[ir.Stmt], holder: str, given: set[str]) -> bool:
    """Whether the statements store a parameter in a field's container (``self.by_kind[kind]
    = handler``): what later methods look up there is what this one was given."""
    return any(
        isinstance(statement, ir.Assign)
        and isinstance(statement.value, ir.Name)
        and statement.value.id in given
        and any(
            isinstance(target, ir.Index)
            and isinstance(target.base, ir.Attr)
            and isinstance(target.base.base, ir.Name)
            and target.base.base.id == holder
            for target in statement.targets
        )
        for statement in statements
    )


def _few_handles(items: Value) -> bool:
    """A few events or streams the code holds apart (``for event in after:
    stream.wait_event(event)`` over the events ``*after`` was given): a turn per handle, so that
    each wait is on that handle, not on one of them joined."""
    return (
        isinstance(items, SeqV)
        and 1 < len(items.items) <= _SPELT_RANGE
        and all(_orders_something(item) for item in items.items)
    )


def _spelt_items(loop: ir.Loop, items: Value) -> bool:
    """A loop over a few buffers the code spells in place (``for table in (self.ids,
    self.lengths): table[:k] = table[keep]``): a turn per buffer, so that each write is to it."""
    spelt = loop.iter
    return (
        isinstance(loop.target, ir.Name)
        and isinstance(spelt, ir.Seq)
        and not spelt.keys
        and 1 < len(spelt.items) <= _SPELT_RANGE
        and isinstance(items, SeqV)
        and len(items.items) == len(spelt.items)
        and all(isinstance(item, TensorV) and item.key for item in items.items)
    )


def _spelt_key(item: Value) -> bool:
    """A constant the code spells, or an entry named by one (a dict's or record's item)."""
    if isinstance(item, SeqV) and len(item.items) == 2:
        item = item.items[0]
    return isinstance(item, ConstV) and item.value is not None


def _named_fields(loop: ir.Loop, names: Value) -> bool:
    """A loop over a few field names the code spells as constants, read by ``getattr``
    (``for name in FIELDS: getattr(host, name).copy_(getattr(device, name))``): a turn per
    name, so that each turn reads the fields of that name."""
    target = loop.target
    return (
        isinstance(target, ir.Name)
        and isinstance(names, SeqV)
        and 1 < len(names.items) <= _SPELT_RANGE
        and all(isinstance(name, ConstV) and isinstance(name.value, str) for name in names.items)
        and any(
            isinstance(call.func, ir.Name)
            and call.func.id == "getattr"
            and len(call.args) >= 2
            and isinstance(call.args[1], ir.Name)
            and call.args[1].id == target.id
            for call in calls_in(loop.body)
        )
    )


def _given_rows(loop: ir.Loop, rows: Value) -> bool:
    """A loop that unpacks the few rows a function gave (``for src, dst, handler in
    spec.handlers():`` over the two tuples it yields): each turn has its own row, whose values
    belong together."""
    target = loop.target
    return (
        isinstance(target, ir.Seq)
        and isinstance(rows, SeqV)
        and 1 < len(rows.items) <= _SPELT_RANGE
        and all(isinstance(row, SeqV) and len(row.items) == len(target.items) for row in rows.items)
    )


def _or_truth(value: Value) -> bool | None:
    """Whether a value is true, as ``or`` tests it: an empty list is false, a stream true."""
    if isinstance(value, SeqV):
        return bool(value.items)
    if isinstance(value, (StreamV, EventV, ObjectV, FuncV, ClassV, QueueV)):
        return True
    return _truth(value)


def _is_view(expr: ir.Expr | None) -> bool:
    """Whether an expression names (part of) a buffer that is already there."""
    if isinstance(expr, (ir.Name, ir.Attr, ir.Index)):
        return True
    return (
        isinstance(expr, ir.Call) and isinstance(expr.func, ir.Attr) and expr.func.name in SAME_MEMORY_METHODS
    )


_SCALAR_READS = ("`int()`", "`float()`", "`bool()`", "`.item()`")


def _held_buffer_keys(value: Value, depth: int = 0) -> list[str]:
    """The buffers a list, tuple or dict holds, by identity (a few levels deep)."""
    if depth > 3:
        return []
    if isinstance(value, TensorV):
        return [value.key] if depth and value.key else []
    parts: tuple[Value, ...] = ()
    if isinstance(value, SeqV):
        parts = value.items
    elif isinstance(value, RecordV):
        parts = tuple(field for _, field in value.fields)
    elif isinstance(value, UnionV):
        parts = value.options
    return [key for part in parts for key in _held_buffer_keys(part, depth + 1)]


def _named_by_field(value: Value, spelled: str) -> Value:
    """Streams a helper made and named by its local variable, named by the field instead."""
    if isinstance(value, StreamV) and "." not in value.label and not value.key.startswith("opaque:"):
        return replace(value, label=spelled)
    if isinstance(value, UnionV):
        return UnionV(tuple(_named_by_field(option, spelled) for option in value.options))
    return value


# What a replayable construction did: the heap keys it read (and when they last changed),
# the objects it entered, whether it called code outside the project, the buffers it
# allocated and those of them no kernel filled.
_Construction = tuple[dict[tuple[str, str, str], int], frozenset[tuple[str, str]], bool, set[str], set[str]]


def _path_effects(state: PathState) -> tuple[object, ...]:
    """What a path carries that a construction must not have changed for its effects to be
    replayed elsewhere (all but the objects entered and the last outside call)."""
    return (
        state.barriers,
        state.gaps,
        state.records,
        state.writes,
        state.synced,
        state.ordered_all,
        state.streams,
        state.returned,
        state.pending,
        state.issued,
        state.unrecorded,
        state.default_displaced,
        state.unordered_entries,
        state.maybe_synced,
        state.maybe_ordered,
    )


def _or_given(default: ConstV, spelling: str) -> Value:
    """A configuration's default, where its users set the configuration: a number (a size, an
    order a copy then uses) or a device is what runs unless they change it; a name (a mode) or
    None may be another, so every branch on it runs."""
    chosen = (
        isinstance(default.value, str)
        and default.value.lower() not in ORDER_STRINGS
        and _device_memory(default) is None
    )
    return Unknown(spelling) if chosen or default.value is None else default


def _alternatives(then: Value, orelse: Value) -> Value:
    """``a if test else b``: where one arm is a name the code spells (a device, a tag) and the
    other one it does not show, the result is not that name (``"cuda" if first else
    config.offload_device``); elsewhere the arms join as any merge does."""
    arms = (then, orelse)
    spelt = [arm for arm in arms if isinstance(arm, ConstV) and isinstance(arm.value, str)]
    if len(spelt) == 1 and any(isinstance(arm, Unknown) for arm in arms):
        return UnionV(arms)
    return join(list(arms))


def _is_number(value: Value) -> bool:
    return (
        isinstance(value, ConstV)
        and isinstance(value.value, (int, float))
        and not isinstance(value.value, bool)
    )


def _recorded_elsewhere(one: PathState, other: PathState) -> bool:
    """An event both paths recorded, on different streams."""
    return any(
        other.records[event][0] != record[0]
        for event, record in one.records.items()
        if event in other.records
    )


def _defaulting(expr: ir.Cond) -> bool:
    """``x if x is not None else default`` (or ``default if x is None else x``): a default for
    what the caller did not give, as ``x or default`` is, not a choice between two things."""
    test = expr.test
    if not isinstance(test, ir.IsNone):
        return False
    given = expr.then if test.negated else expr.orelse
    spelt = _spelling(test.operand)
    return bool(spelt) and _spelling(given) == spelt


def _wraps_a_raw_copy(function: ir.Function) -> bool:
    """A binding's thin wrapper: one statement that calls one raw copy entry point (perhaps
    inside a status check), passing it the wrapper's parameters and constants as they are."""
    body = [s for s in function.body if not (isinstance(s, ir.Eval) and isinstance(s.value, ir.Const))]
    if len(body) != 1 or not isinstance(body[0], (ir.Eval, ir.Return)) or body[0].value is None:
        return False
    copies = [
        call
        for call in calls_in(body)
        if isinstance(call.func, (ir.Name, ir.Attr)) and _spelling(call.func).rpartition(".")[2] in COPY_APIS
    ]
    return len(copies) == 1 and all(
        isinstance(arg, (ir.Name, ir.Attr, ir.Const))
        for arg in (*copies[0].args, *(v for _, v in copies[0].kwargs))
    )


def _handles_of(key: tuple[str, str, str]) -> tuple[str, str, str]:
    """The heap key a read of only a field's handles notes (``_stored_handles``)."""
    return (key[0], key[1], f"{key[2]} (handles)")


def _field_key(holder: ObjectV, name: str) -> tuple[str, str, str]:
    """A field of one instance (not of its class as a whole), as the heap keys it."""
    return (holder.module, f"{holder.qualname}@{holder.site}", name)


def _on_device(value: Value) -> bool:
    """A GPU tensor, or a value that is one wherever it is a tensor at all (a holder's field
    that may also be None or what the code does not show)."""
    if memory_of(value) is Memory.DEVICE:
        return True
    tensors = [option for option in options(value) if isinstance(option, TensorV)]
    return bool(tensors) and all(tensor.memory is Memory.DEVICE for tensor in tensors)
