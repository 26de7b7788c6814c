"""The stream-ordering analysis: an abstract interpreter over the project's lowered code.

It runs every entry point of the project (functions nothing in the project calls, and
module code), following calls into project functions with their arguments bound, object
attributes assigned anywhere in a class, queue hand-offs and thread targets. Along every
path it tracks, per stream, since when the stream is ordered behind the producer (the
current stream of the thread that made the request), the events recorded and where, the
producer's writes and host-blocking syncs. At each copy launch it records the stream, the
source and destination memory, the source access order and whether the path is ordered.

Conservative choices, documented in the rule pages: a ``wait_stream`` on a stream the
analysis cannot resolve counts as a barrier behind the producer; an event whose record is
not visible on the path counts as recorded before the path began; a copy whose direction
the code does not show is reported as uncertain.

The evaluator (``kvguard.lint.evaluator``) reads the code; the API knowledge is the table in
``kvguard.lint.api`` and one handler module per family in ``kvguard.lint.handlers``; this
module composes them and drives the run.
"""

from __future__ import annotations

import contextlib
from collections import Counter, deque
from dataclasses import replace

from kvguard.lint import ir
from kvguard.lint.api import DEVICE_SYNCS, EVENT_SYNCS, SEED_NAMES, STREAM_SYNCS, WEAK_NAMES
from kvguard.lint.dependencies import BODY, CLASS, FUNCTION, UnitIndex
from kvguard.lint.evaluator import (
    _ANY_STREAM,
    _CALLS_PER_ROOT,
    _PYTHON_BUILTINS,
    _RUNS_PER_THREAD_FUNCTION,
    Handled,
    _array_kernel,
)
from kvguard.lint.facts import Memory
from kvguard.lint.findings import Span
from kvguard.lint.handlers.arrays import ArrayApi
from kvguard.lint.handlers.handoffs import FUTURE, HandoffApi
from kvguard.lint.handlers.python import PythonApi
from kvguard.lint.handlers.raw_copies import RawCopyApi
from kvguard.lint.handlers.streams import StreamApi
from kvguard.lint.handlers.tensors import TensorApi
from kvguard.lint.pathstate import Frame, PathState, ThreadStart
from kvguard.lint.reading import (
    _HOST_READS,
    _TENSOR_WRITE,
    _WHOLE_BUFFER_READS,
    BUILTIN_METHODS,
    OWN_CALL,
    PLAIN_CALL,
    _direct_calls,
    _fields_assigned,
    _globals_made,
    _names_used,
    _opaque_call,
    _spelling,
)
from kvguard.lint.results import MAIN_THREAD, Analysis, CopyRun, Dependencies, HostRead
from kvguard.lint.values import (
    UNKNOWN,
    ExternalV,
    FuncV,
    LambdaV,
    ObjectV,
    RecordV,
    SeqV,
    TensorV,
    Value,
    options,
)

# Host waits for the device, a stream or an event, by name.
_HOST_WAITS = DEVICE_SYNCS | STREAM_SYNCS | EVENT_SYNCS

# How many calls above a seed (a function naming a stream, event, thread, queue or raw copy)
# a function the roots never reached still runs on its own.
_FALLBACK_LEVELS = 2


class Interpreter(StreamApi, RawCopyApi, ArrayApi, HandoffApi, PythonApi, TensorApi):
    """The analysis: the evaluator with every API family's handlers, and the driver that runs
    the project's entry points, their instances and the threads they start."""

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
        """Methods whose meaning does not depend on the receiver's class being in the project,
        by family. The order matters only where two families know one name (``get``)."""
        for handler in _METHOD_HANDLERS:
            found = handler(self, call, method, receiver, callee, args, kwargs, frame, state)
            if found is not None:
                return found
        return None

    def _external(
        self,
        dotted: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: Frame,
        state: PathState,
    ) -> tuple[Value, PathState]:
        """A call of a function outside the project, by family; what no family models is an
        opaque object of its library."""
        last = dotted.rsplit(".", 1)[-1]
        for handler in _FUNCTION_HANDLERS:
            found = handler(self, dotted, last, args, kwargs, call, frame, state)
            if found is not None:
                return found
        if _array_kernel(ExternalV(dotted)):
            # ``cupy.fft.rfft(x)``, ``cupy.log(x)``: a new array computed on the device
            return self._computed(TensorV(Memory.DEVICE), frame, call, state), state
        result = _opaque_call(last, args, kwargs)
        # What an unmodelled library call returns is still that library's object: its methods
        # are read by name as the device modules' are (``get_accelerator().stream(s)``,
        # ``torch.get_device_module("cuda").Stream()``). A built-in's (``range(n)``) is a
        # plain Python value.
        # ``open(path)`` is a file: its ``write`` is the file's, not a project method's.
        opaque = result == UNKNOWN and (dotted not in _PYTHON_BUILTINS or dotted == "open")
        return (ExternalV(f"{dotted}()") if opaque else result), state

    # ------------------------------------------------------------------ driver
    def run(self) -> Analysis:
        roots = self._roots()
        writers = self._methods_filling_fields(roots)
        self._host_readers = {key for key in self._functions if self._reads_its_objects_copies(key)}
        # From here on what the runs read is noted; the indexes above read only the modules'
        # shapes (kvguard.lint.dependencies).
        self._functions.noted, self._classes.noted = set(), set()
        self._methods_found.clear()  # found before reads were noted: found again, noted
        unreached: list[tuple[str, str]] = []
        for reporting in (False, True):
            self._reporting = reporting
            self._puts, self._threads = {}, []
            self._called, self._called_in_order = set(), []
            self._constructions = {}  # the reporting pass runs with every field known
            for (module, cls), init in self._inherited_constructions:
                self._run_root(init, ObjectV(module, cls))
            for root in [*writers, *roots]:
                self._run_root_and_instances(root)
            if not reporting:
                # Called only from places the analysis cannot resolve (another package, a
                # registry, a callback): run on their own, where an unresolved stream is not
                # reported, since the real caller may pass a resolved one.
                # A thread's target, and what it calls, are not among them: they run as that
                # thread, after the roots.
                # Those far above any seed only pass on to it what their callers, unknown,
                # give them: the functions nearer the seed run on their own instead.
                unreached = sorted(
                    key
                    for key in self._relevant - self._entered - self._thread_code() - self._nested
                    if self._levels[key] <= _FALLBACK_LEVELS
                )
                # Callers before what they call: a caller's run reaches its callees with its
                # arguments and barriers, and a callee it reached does not run on its own.
                unreached = self._callers_first(unreached)
            self._fallback = True
            started, known = self._thread_code(), len(self._threads)
            for key in unreached:
                if len(self._threads) != known:  # a fallback root started a thread
                    started, known = self._thread_code(), len(self._threads)
                # A call resolved after all (the first pass learnt the fields it goes through)
                # runs it with its caller's arguments: on its own it would run with none, its
                # parameters' defaults standing for what the caller passes.
                if key not in self._called and key not in started:
                    self._run_root_and_instances(key, instances=False)
            if reporting:
                # Methods that only read their object's buffers on the host, of classes some
                # call of which left a copy unfinished (known only now): code outside the
                # project may call them next (``save()`` after ``update()``).
                for key in sorted(self._host_readers - self._entered):
                    if (key[0], self._functions[key].class_name) in self._left_pending:
                        self._run_root_and_instances(key, instances=False)
            self._fallback = False
        self._run_threads()
        self._rerun_starved()
        dependencies = Dependencies(consulted=self._consulted())
        return Analysis(
            self._carried(_directed_by_stream(self._with_stream_where_known(self.runs))),
            self._settled(self.host_reads),
            self.failed,
            dependencies,
        )

    @staticmethod
    def _with_stream_where_known(runs: list[CopyRun]) -> list[CopyRun]:
        """Copies reached only with their stream unknown (``CopyRun.order_only``), where no
        path reached them with it: where one did, that path says what they read."""
        known = {(run.path, run.span) for run in runs if not run.order_only}
        return [run for run in runs if not run.order_only or (run.path, run.span) not in known]

    def _carried(self, runs: list[CopyRun]) -> list[CopyRun]:
        """Copies on a stream an earlier call of their object left ordered (every call of it
        that copied there ended ordered), known only once every call has run; and loads into
        one of several alike objects only where the code waits on events such objects hold."""
        if not self._pooled_waited:
            runs = [replace(run, destination_pooled=False) if run.destination_pooled else run for run in runs]
        return [
            replace(run, ordered_by_earlier_call=True)
            if run.stream is not None
            and any(
                run.stream.key in self._left_ordered.get(holder, set()) - self._left_unordered
                for holder in run.earlier_calls
            )
            else run
            for run in runs
        ]

    def _consulted(self) -> dict[str, dict[str, str]]:
        """The digest of every unit the runs read, by module."""
        units = set(self._units_read)
        units.update((module, FUNCTION + qualname) for module, qualname in self._functions.noted or ())
        units.update((module, CLASS + qualname) for module, qualname in self._classes.noted or ())
        indexes: dict[str, UnitIndex] = {}
        consulted: dict[str, dict[str, str]] = {}
        for module, unit in sorted(units):
            entry = self._modules.get(module)
            if entry is None:
                continue  # no such module: the module set is part of what a result depends on
            if module not in indexes:
                indexes[module] = UnitIndex(entry.code)
            consulted.setdefault(module, {})[unit] = indexes[module].digest(unit)
        return consulted

    def _settled(self, reads: list[HostRead]) -> list[HostRead]:
        """A copy an earlier call of an object left unfinished, read by a later call: where
        the project never waits for the copy's stream (nor for the device or an event), no
        caller can have waited between the calls either, so the read is established."""
        if _ANY_STREAM in self._waited_somewhere or self._syncs_somewhere:
            return reads
        return [
            replace(read, copy=replace(read.copy, earlier_call=False))
            if read.copy.earlier_call and read.copy.stream_key not in self._waited_somewhere
            else read
            for read in reads
        ]

    def _run_root_and_instances(
        self, key: tuple[str, str], instances: bool = True, again: bool = True
    ) -> None:
        """Run an entry point (and, for a method, once per instance the project constructs,
        with its own fields). The reporting pass runs only those whose collecting run reached
        a copy it records (its own or one an earlier call left unfinished) or handed work to another
        thread, and those that read a field or global that was given a value opening new
        paths (or an instance was made) after that run: the rest cannot report, and what
        they store in fields the collecting pass stored."""
        runs = self._instances_for(key) if instances else []
        if self._reporting and key not in self._effective and key in self._collected:
            started, read, instance_count, called = self._collected[key]
            changed = any(self._heap_changed.get(k, -1) > started for k in read)
            # Skipped, it still counts as calling what it called: those do not run on their own.
            if len(runs) <= instance_count and not changed:
                for function in called:
                    self._note_called(function)
                return
        self._heap_reads = set()
        self._running_root = key
        started = self._root_runs
        self._root_runs += 1
        calls_before = len(self._called_in_order)
        before = self._reportable()
        self._run_root(key)
        alike: list[tuple[str, str, dict[str, list[Value]]]] = []
        for instance in runs:
            # Instances of one class whose own fields hold the same values (a layer made at
            # a hundred sites with the same arguments) run alike: one runs for them all.
            fields = self._own_fields(instance)
            if (instance.module, instance.qualname, fields) in alike:
                continue
            alike.append((instance.module, instance.qualname, fields))
            self._run_root(key, instance)
        if self._reportable().reports_since(before):
            self._effective.add(key)
        if (
            self._reporting
            and again
            and any(self._heap_changed.get(k, -1) >= started for k in self._heap_reads)
        ):
            # Its run changed a field it reads (a deque of earlier transfers it appends to): its
            # next call sees the new value, so it runs again.
            self._run_root_and_instances(key, instances, again=False)
            return
        if not self._reporting:
            called = self._called_in_order[calls_before:]
            self._collected[key] = (started, self._heap_reads, len(runs), called)

    def _own_fields(self, instance: ObjectV) -> dict[str, list[Value]]:
        """What the fields of one instance (not its class as a whole) hold so far."""
        owner = (instance.module, f"{instance.qualname}@{instance.site}")
        return {name: list(self._heap.get((*owner, name), ())) for name in self._fields_of.get(owner, ())}

    def _rerun_starved(self) -> None:
        """Entry points that took from a queue only threads fill (a result queue a worker
        thread puts on), run again now that those threads have put on it."""
        starved, self._starved = self._starved, {}
        self._reporting = True
        for key, queues in sorted(starved.items()):
            filled = any(made.split("@")[0] in queues for made, puts in self._puts.items() if puts)
            if filled and key in self._functions:
                self._run_root(key)

    def _thread_code(self) -> set[tuple[str, str]]:
        """The functions threads started so far run."""
        return self._called_from(
            [(s.target.module, s.target.qualname) for s in self._threads if isinstance(s.target, FuncV)]
        )

    def _called_from(self, functions: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """These functions and every project function they call by name, transitively."""
        found = set(functions)
        pending = list(functions)
        while pending:
            for key in self._direct_callees(pending.pop()):
                if key not in found:
                    found.add(key)
                    pending.append(key)
        return found

    def _direct_callees(self, caller_key: tuple[str, str]) -> list[tuple[str, str]]:
        """The project functions a function calls by plain name or through ``self`` (read once)."""
        known = self._callees.get(caller_key)
        if known is not None:
            return known
        if self._functions_by_name is None:
            self._functions_by_name = {}
            for key, function in self._functions.items():
                self._functions_by_name.setdefault(function.name, []).append(key)
        by_name = self._functions_by_name
        caller = self._functions.get(caller_key)
        callees: list[tuple[str, str]] = []
        if caller is not None:
            plain, on_self = _direct_calls(caller.body)
            callees = [
                key for name in plain for key in by_name.get(name, ()) if not self._functions[key].class_name
            ]
            owner = self._self_class(caller_key)
            if owner:
                # ``self.m()``: the method its own class (or a base) defines, not every ``m``;
                # and its overrides in the project's subclasses, which run there for an instance
                # of one (a base thread class's ``run`` calling ``self._handle(request)``).
                callees += [
                    method
                    for name in on_self
                    if (method := self._method(caller_key[0], owner, name)) is not None
                ]
                if on_self:
                    subclasses = self._class_and_subclasses(owner) - {owner.rsplit(".", 1)[-1]}
                    callees += [
                        key
                        for name in on_self
                        for key in by_name.get(name, ())
                        if self._functions[key].class_name.rsplit(".", 1)[-1] in subclasses
                    ]
            # Functions defined inside it run as part of it (called there, or handed on as
            # callbacks).
            callees += self._nested_in.get(caller_key, [])
        self._callees[caller_key] = callees
        return callees

    def _self_class(self, key: tuple[str, str]) -> str:
        """The class whose ``self`` a function sees: its own, or a nested function's enclosing
        method's."""
        while key in self._nested:
            key = (key[0], key[1].rpartition(".")[0])
        return self._functions[key].class_name

    def _run_threads(self) -> None:
        """Threads consume what the roots put on queues; threads may start threads. Each thread
        function runs for at most a few of its starts (the first ones, in the order the roots
        made them), so a large project's many threads are all analysed and a thread that
        starts itself ends."""
        runs: dict[tuple[str, str] | None, int] = {}
        done = 0
        while done < len(self._threads):
            start = self._threads[done]
            done += 1
            thread_function = (
                (start.target.module, start.target.qualname) if isinstance(start.target, FuncV) else None
            )
            if runs.get(thread_function, 0) >= _RUNS_PER_THREAD_FUNCTION:
                continue
            runs[thread_function] = runs.get(thread_function, 0) + 1
            self._fallback = start.fallback
            with contextlib.suppress(RecursionError):  # too deep to follow: left unanalysed
                try:
                    self._run_thread_knowing_its_kernels(start)
                except Exception as error:  # a bug here must not cost the rest of the run
                    self.failed.append(f"thread {start.label}: {type(error).__name__}: {error}")
            self._fallback = False

    def _roots(self) -> list[tuple[str, str]]:
        """Functions nothing in the project calls, and module code, that can reach a stream
        ordering construct; everything else is reached from them or cannot matter."""
        called = self._names_called
        roots = [
            ("<module>", name)
            for name, module in sorted(self._modules.items())
            if self._uses[id(module.code.body)][1] & SEED_NAMES
        ]
        # A method runs on an instance its class's constructor made: where the project never
        # constructs the class, its constructor runs first, on the generic instance, so the
        # methods see the fields it sets (a pinned buffer, a stream) rather than nothing.
        holders = {
            (module, function.class_name)
            for (module, _), function in self._functions.items()
            if function.class_name and (module, function.qualname) in self._relevant
        }
        constructors = {
            (module, f"{cls}.__init__")
            for module, cls in holders
            if cls.rsplit(".", 1)[-1] not in called and (module, f"{cls}.__init__") in self._functions
        }
        roots += sorted(constructors)
        # A class that inherits its constructor: the base's runs on the generic instance of
        # the class (its overrides, ``self.init_buffers()``, are the class's own).
        self._inherited_constructions = sorted(
            ((module, cls), init)
            for module, cls in holders
            if cls.rsplit(".", 1)[-1] not in called
            and (module, f"{cls}.__init__") not in self._functions
            and (init := self._method(module, cls, "__init__")) is not None
        )
        # Likewise a module's lazy initialiser (``global copy_stream; copy_stream = Stream()``)
        # runs first, so that readers of the global see what it makes, not its ``None``.
        initialisers = {
            key
            for key, function in self._functions.items()
            if function.global_names and key in self._relevant and key not in constructors
        }
        roots += sorted(initialisers)
        plain = sorted(
            key
            for key, function in self._functions.items()
            if function.name not in called
            # One handed on (``executor.submit(partial(self.job, ...))``) runs where it is
            # handed, on that thread; if the analysis cannot follow the hand-off it runs later,
            # on its own (the unreached functions below).
            and function.name not in self._passed
            and key in self._relevant
            and key not in constructors
            and key not in initialisers
            # A function defined in another runs with the names that one binds, as it runs.
            and key not in self._nested
            # A constructor runs where its class is constructed.
            and not (function.name == "__init__" and function.class_name.rsplit(".", 1)[-1] in called)
            # Calling an instance runs ``__call__`` with its arguments, where the project makes
            # one (of the class or a subclass) and so calls it.
            and not (function.name == "__call__" and called & self._class_and_subclasses(function.class_name))
            # A thread's ``run`` runs on its thread, where ``start()`` is called.
            and not (
                function.name == "run"
                and "start" in called
                and self._is_thread_class((key[0], function.class_name))
            )
        )
        # Producers before consumers: a coroutine that awaits ``queue.get()`` runs its loop
        # body once per payload put so far, so the functions that put run first.
        puts = {"put", "put_nowait"}
        roots += sorted(plain, key=lambda key: not (self._uses[id(self._functions[key].body)][0] & puts))
        return roots

    def _class_and_subclasses(self, class_name: str) -> set[str]:
        """A class's name and those of the project's classes that derive from it, by name."""
        names = {class_name.rsplit(".", 1)[-1]}
        grown = True
        while grown:
            found = {
                info.name
                for info in self._classes.values()
                if any(_spelling(base).rsplit(".", 1)[-1] in names for base in info.bases)
            }
            grown = not found <= names
            names |= found
        return names

    def _reads_its_objects_copies(self, key: tuple[str, str]) -> bool:
        """A method that reads buffers on the host, of a class whose other methods matter:
        code outside the project may call it after one of them left a copy unfinished
        (``save()`` after the write-back ``update()`` started)."""
        function = self._functions[key]
        return (
            bool(function.class_name)
            and (key[0], function.class_name) in self._relevant_classes
            and bool(self._uses[id(function.body)][1] & _WHOLE_BUFFER_READS)
        )

    def _methods_filling_fields(self, roots: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Other methods of the classes the roots belong to, called from outside the project,
        that set or fill a field of their object (``self.tag_to_state[tag] = tensor``): what
        they store is what the roots may read there, so they run while fields are collected.
        Methods the project calls run where they are called, with their caller's arguments."""
        classes = {
            (module, function.class_name)
            for module, qualname in roots
            if (function := self._functions.get((module, qualname))) is not None and function.class_name
        }
        return sorted(
            key
            for key, function in self._functions.items()
            if (key[0], function.class_name) in classes
            and key not in self._relevant
            and key not in self._nested
            and function.name not in self._names_called
            and function.params
            and _fields_assigned(function.body, function.params[0].name, items=True)
        )

    def _relevance(self) -> None:
        """Which functions can matter: those naming a stream construct, a raw copy, a thread
        or a source order (relevant), and those naming a tensor copy or allocation (reach);
        each closed over callers, by called name."""
        callers: dict[str, set[tuple[str, str]]] = {}
        seeds, weak = [], []
        scopes = {name: _module_scope(module.code, self._packages) for name, module in self._modules.items()}
        # Module constants that spell what the gate knows (``COPY_ATTRIBUTES = {"store":
        # {"srcAccessOrder": ...Any}}``): a function reading one matters as if it spelled it.
        seed_constants = {
            name
            for module in self._modules.values()
            for name, value in module.code.constants.items()
            if _names_used([ir.Return(value, Span(0, 0, 0, 0))])[1] & SEED_NAMES
        }
        for key, function in self._functions.items():
            calls: set[tuple[str, str]] = set()
            called, mentioned, passed = _names_used(function.body, calls)
            self._uses[id(function.body)] = (called, mentioned)
            self._names_called |= called
            self._passed |= passed
            # Handing a function on (``partial(self.job)``, ``pool.submit(self.job)``) is how
            # it comes to run: the hand-off matters as a call would.
            for name in _linked_calls(calls, called, scopes[key[0]]) | passed:
                callers.setdefault(name, set()).add(key)
            # A host wait anywhere in the code read, reached by a run or not: a caller may make
            # it between two calls of an object.
            self._syncs_somewhere |= bool(mentioned & _HOST_WAITS)
            if (
                mentioned & SEED_NAMES
                or mentioned & seed_constants
                or any(_spelling(d).endswith("contextmanager") for d in function.decorators)
            ):
                seeds.append(key)
            elif mentioned & WEAK_NAMES or mentioned & _HOST_READS or _TENSOR_WRITE in mentioned:
                weak.append(key)  # copies, allocations, writes and host reads, on a seed's path
        # A function that defines a closure is how the closure comes to exist and to be handed
        # on (a factory of hooks or callbacks): it matters as a call of it would.
        for parent, inner in self._nested_in.items():
            for key in inner:
                callers.setdefault(self._functions[key].name, set()).add(parent)
        for module in self._modules.values():
            called, mentioned, passed = _names_used(module.code.body)
            self._uses[id(module.code.body)] = (called, mentioned)
            self._names_called_at_top |= called
            self._passed |= passed
        self._relevant = self._closure(seeds, callers, self._levels)
        # A global that a function that matters makes lazily (``global _copy_fn; _copy_fn =
        # _resolve()``, a copy entry point) matters wherever it is read, as a seed constant.
        made: set[str] = set()
        while grown := {n for key in self._relevant for n in _globals_made(self._functions[key])} - made:
            made |= grown
            readers = [
                key
                for key, function in self._functions.items()
                if key not in self._relevant and self._uses[id(function.body)][1] & grown
            ]
            seeds += readers
            self._relevant = self._closure(seeds, callers, self._levels)
        self._reach = self._closure(seeds + weak, callers)
        self._relevant_classes = self._classes_of(self._relevant)
        self._reach_classes = self._classes_of(self._reach)

    def _callers_first(self, functions: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The functions, those none of the others calls by name first (one pass over their
        calls, not one per pair)."""
        calls = {key: self._uses[id(self._functions[key].body)][0] for key in functions}
        callers_of = Counter(name for names in calls.values() for name in names)

        def called_by_another(key: tuple[str, str]) -> bool:
            name = self._functions[key].name
            return callers_of[name] > (name in calls[key])

        return sorted(functions, key=called_by_another)

    def _classes_of(self, functions: set[tuple[str, str]]) -> set[tuple[str, str]]:
        """The classes (module, class) the methods among ``functions`` belong to."""
        return {
            (module, function.class_name)
            for module, qualname in functions
            if (function := self._functions[(module, qualname)]).class_name
        }

    def _closure(
        self,
        seeds: list[tuple[str, str]],
        callers: dict[str, set[tuple[str, str]]],
        levels: dict[tuple[str, str], int] | None = None,
    ) -> set[tuple[str, str]]:
        """Seeds and everything that calls them by name; constructing a class whose methods
        are in the set counts as calling them (its instances carry their fields). ``levels``
        gets how many calls each is above a seed."""
        found = set(seeds)
        pending = deque(seeds)
        if levels is not None:
            levels.update(dict.fromkeys(seeds, 0))
        subclasses: dict[str, set[str]] = {}
        for info in self._classes.values():
            for base in info.bases:
                subclasses.setdefault(_spelling(base).rsplit(".", 1)[-1], set()).add(info.name)
        while pending:
            key = pending.popleft()
            function = self._functions[key]
            names = [function.name]
            if function.class_name:
                # Constructing the class, or any subclass, makes an instance with this method.
                classes = [function.class_name.rsplit(".", 1)[-1]]
                for cls in classes:
                    classes.extend(sorted(subclasses.get(cls, set()) - set(classes)))
                names.extend(classes)
            for name in names:
                for caller in callers.get(name, ()):
                    if caller not in found:
                        found.add(caller)
                        pending.append(caller)
                        if levels is not None:
                            levels[caller] = levels[key] + 1
        return found

    def _instances_for(self, key: tuple[str, str]) -> list[ObjectV]:
        function = self._functions.get(key)
        # A constructor already ran for each instance, with its real arguments.
        if function is None or not function.class_name or function.name == "__init__":
            return []
        return [
            instance
            for instance in self._instances
            if self._method(instance.module, instance.qualname, function.name) == key
        ]

    def _run_root(self, key: tuple[str, str], instance: ObjectV | None = None) -> None:
        # Nesting deeper than the interpreter can follow leaves this entry point unanalysed.
        with contextlib.suppress(RecursionError):
            try:
                self._run_root_unguarded(key, instance)
            except Exception as error:  # a bug here must not cost the rest of the run
                self.failed.append(f"{key[0]}.{key[1]}: {type(error).__name__}: {error}")

    def _run_root_unguarded(self, key: tuple[str, str], instance: ObjectV | None) -> None:
        self._budget = _CALLS_PER_ROOT
        self._entered_by_root = set()
        self._fresh = set()
        self._unwritten = set()
        self._arms = ()
        if key[0] == "<module>":
            module = self._modules[key[1]]
            self._units_read.add((module.name, BODY))
            frame = Frame(module, {}, MAIN_THREAD, (), 0, ())
            self._block(tuple(module.code.body), frame, PathState())
            return
        module_name, qualname = key
        function = self._functions[key]
        module = self._modules[module_name]
        bound: Value | None = instance
        if bound is None and function.class_name:
            bound = ObjectV(module_name, function.class_name)
        frame = Frame(module, {}, MAIN_THREAD, (), 0, ())
        # What the call leaves running is kept for the object's later calls (``_invoke``).
        returned, end = self._invoke(FuncV(module_name, qualname, bound), (), (), PathState(), frame, None)
        # Buffers it hands its caller, outside the project, whose kernels use them after the call.
        handed = [
            held
            for option in options(returned)
            for held in (option.items if isinstance(option, SeqV) else (option,))
            if isinstance(held, TensorV) and held.key
        ]
        self._handed_to_callers |= {held.key for held in handed}
        # Not what a value computed from a table of addresses points into: the caller is
        # handed the result, not those buffers.
        self._note_used_after_records(end, {held.key for held in handed if not held.address})

    def _note_used_after_records(self, end: PathState, handed: set[str]) -> None:
        """Buffers kernels used on an event's stream after its last record in this call (and
        those the call returns, which its caller's kernels use after an event recorded on
        its current stream): a later call waiting on the event is not ordered behind those."""
        caller = f"current@{MAIN_THREAD}"
        for event, (stream, recorded) in end.records.items():
            on_stream = stream.key if stream is not None else caller
            if recorded < 0:
                continue
            used = {
                (buffer, on)
                for uses in (end.reads, end.writes)
                for buffer, (time, _, on) in uses.items()
                if time > recorded and on == on_stream and buffer.startswith("alloc@")
            }
            if on_stream == caller:
                used |= {(buffer, caller) for buffer in handed}
            if used:
                self._used_after_record.setdefault(event, set()).update(used)

    def _run_thread_knowing_its_kernels(self, start: ThreadStart) -> None:
        """Run a thread; where it turns out to launch kernels on its own current stream (a
        worker loop running the model), run it again knowing that: a copy it issued before the
        first launch was waiting on a producer stream all along."""
        target = start.target
        thread = (
            f"thread running {target.qualname}" if isinstance(target, FuncV) and not start.same_thread else ""
        )
        own = f"current@{thread}"
        launched_before = own in self._kernel_streams
        runs, reads = len(self.runs), len(self.host_reads)
        self._run_thread(start)
        if thread and not launched_before and own in self._kernel_streams:
            del self.runs[runs:], self.host_reads[reads:]
            self._run_thread(start)

    def _run_thread(self, start: ThreadStart) -> None:
        self._budget = _CALLS_PER_ROOT
        self._entered_by_root = set()
        self._fresh = set()
        self._unwritten = set()
        target = start.target
        if isinstance(target, LambdaV):
            caller, state = self._on_worker(start, target)
            self._call_job(target, start.arguments, state, caller)
            return
        if not isinstance(target, FuncV) or (target.module, target.qualname) not in self._functions:
            return
        caller, state = self._on_worker(start, target)
        if isinstance(start.initializer, FuncV):
            _, state = self._call_job(start.initializer, (), state, caller)
        _, state = self._call_job(target, start.arguments, state, caller)
        future = RecordV(FUTURE, ())
        for callback in start.callbacks:
            if isinstance(callback, (FuncV, LambdaV)):
                _, state = self._call_job(callback, (future,), state, caller)


# The API handlers, in the order they are tried (made once, not per call: this is the hot path).
_METHOD_HANDLERS = (
    StreamApi._stream_method,
    TensorApi._host_read_method,
    HandoffApi._handoff_method,
    ArrayApi._array_method,
    TensorApi._tensor_method,
    PythonApi._container_method,
    TensorApi._tensor_method_fallback,
)
_FUNCTION_HANDLERS = (
    RawCopyApi._raw_copy_function,
    ArrayApi._array_function,
    StreamApi._stream_function,
    TensorApi._host_read_function,
    HandoffApi._handoff_function,
    PythonApi._builtin_function,
    TensorApi._tensor_function,
)


def _directed_by_stream(runs: list[CopyRun]) -> list[CopyRun]:
    """Copies whose sides the code places neither of, issued in stream blocks (``with
    stream:``) where every copy it places in other functions goes one way (host to GPU, or
    GPU to host): taken to go that way too, where every path to the copy goes that way (not
    a helper that one block runs for loads and another for stores)."""
    ways: dict[tuple[str, object], set[tuple[str, tuple[Memory, Memory] | None]]] = {}
    for run in runs:
        if run.stream is not None and run.stream.entered_at is not None and run.direction_shown:
            ways.setdefault((run.stream.key, run.stream.entered_at), set()).add((run.function, _way(run)))

    def way_of(run: CopyRun) -> tuple[Memory, Memory] | None:
        if run.direction_shown:
            return _way(run)
        entered = run.stream.entered_at if run.stream is not None else None
        placed = ways.get((run.stream.key, entered), set()) if run.stream is not None and entered else set()
        # Not the copies of its own function: its other branches say nothing of this one.
        found = {way for function, way in placed if function != run.function}
        return next(iter(found)) if len(found) == 1 else None

    by_site: dict[tuple[str, Span], set[tuple[Memory, Memory] | None]] = {}
    for run in runs:
        by_site.setdefault((run.path, run.span), set()).add(way_of(run))
    directed = []
    for run in runs:
        found = by_site[(run.path, run.span)]
        unplaced = run.source_memory is Memory.UNKNOWN and run.destination_memory is Memory.UNKNOWN
        way = next(iter(found)) if len(found) == 1 else None
        if unplaced and way is not None:
            source, destination = way
            run = replace(run, source_memory=source, destination_memory=destination, direction_by_stream=True)
        directed.append(run)
    return directed


def _way(run: CopyRun) -> tuple[Memory, Memory] | None:
    """Host to GPU or GPU to host, as far as the copy's sides show; None for neither."""
    source, destination = run.source_memory, run.destination_memory
    load = destination is Memory.DEVICE or source is Memory.HOST
    store = source is Memory.DEVICE or destination is Memory.HOST
    if load == store:
        return None
    return (Memory.HOST, Memory.DEVICE) if load else (Memory.DEVICE, Memory.HOST)


def _module_scope(code: ir.ModuleCode, packages: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names a module binds at its top level (what a plain call there can reach), and
    those of them bound to modules outside the project (``torch``, ``np``)."""
    defined = {function.name for function in code.functions if not function.class_name}
    bound = frozenset({*code.imports, *code.constants, *defined, *(cls.name for cls in code.classes)})
    outside = frozenset(
        name
        for name, target in code.imports.items()
        if not target.startswith(".") and target.split(".")[0] not in packages
    )
    return bound, outside


def _linked_calls(
    calls: set[tuple[str, str]], called: set[str], scope: tuple[frozenset[str], frozenset[str]]
) -> set[str]:
    """The names a function calls that may be project functions of that name: a plain name
    only where its module binds it (``max(a, b)`` is the built-in unless defined or imported
    there), a method on another object unless built-in types have it (``d.get(k)``) or the
    object is a module outside the project (``torch.cat``). Not ``__init__``: constructing a
    class reaches its constructor by the class's name."""
    bound, outside = scope
    linked = set()
    for receiver, name in calls:
        if receiver == PLAIN_CALL:
            if name in bound:
                linked.add(name)
        elif receiver == OWN_CALL or (receiver not in outside and name not in BUILTIN_METHODS):
            linked.add(name)
    call_names = {name for _, name in calls}
    # What ``called`` holds besides calls (a thread's ``target=``) stays.
    return (linked | (called - call_names)) - {"__init__"}
