"""What an analysis result depends on, so that an edit it does not depend on reuses it.

The interpreter reads a project in two ways. Its indexes (which functions are entry points,
which can matter, which methods set which fields, which name calls which) read every
function, but only a few facts about each: its name and class, its parameters and
decorators, the names it calls and passes, whether it mentions a name of the API table, the
fields it assigns through its first parameter. Those facts, over a whole module, are the
module's *shape*. Its runs then read the code of the functions, classes and module-level
names they reach, each a *unit* of a module with its own digest.

A result computed from one version of the project holds for another in which every module
has the same path and shape, and every unit the runs consulted has the same code (positions
included: a result names lines). Adding a statement to a function the analysis never entered,
or a module constant nothing reads, leaves both as they were; a change to a function on an
analysed path, or one that adds a call, does not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

from kvguard.lint import ir, serial
from kvguard.lint.api import SEED_NAMES, WEAK_NAMES
from kvguard.lint.devices import accelerator_params
from kvguard.lint.reading import (
    _TENSOR_WRITE,
    _WHOLE_BUFFER_READS,
    _fields_assigned,
    _fields_given,
    _globals_made,
    _hands_out_a_field,
    _names_used,
    _spelling,
)
from kvguard.lint.results import Dependencies

# The mentioned names the indexes look for; any other mention only matters to a run that
# enters the function, and a run that does consults its code.
_INDEXED_MENTIONS = SEED_NAMES | WEAK_NAMES | _WHOLE_BUFFER_READS | {_TENSOR_WRITE}

K = TypeVar("K")
V = TypeVar("V")

# Unit names: a function or class by qualified name, a module-level name's binding (its
# constant or import), the module's own statements, and its imports as a whole.
FUNCTION = "def "
CLASS = "class "
NAME = "name "
BODY = "body"
IMPORTS = "imports"


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def module_shape(code: ir.ModuleCode) -> str:
    """A digest of every fact about the module that the interpreter's indexes read."""
    facts: list[object] = []
    for function in code.functions:
        called, mentioned, passed = _names_used(function.body)
        holder = function.params[0].name if function.params else ""
        facts.append(
            (
                function.qualname,
                function.name,
                function.class_name,
                function.is_async,
                function.global_names,
                tuple((p.name, p.star, p.default is None) for p in function.params),
                tuple(_spelling(decorator) for decorator in function.decorators),
                sorted(called),
                sorted(passed),
                sorted(mentioned & _INDEXED_MENTIONS),
                sorted(_fields_assigned(function.body, holder)) if holder else [],
                sorted(_fields_assigned(function.body, holder, items=True)) if holder else [],
                _hands_out_a_field(function),
                sorted(_fields_given(function.body)),
                sorted(_globals_made(function)),
            )
        )
    for cls in code.classes:
        facts.append((cls.qualname, cls.name, tuple(_spelling(base) for base in cls.bases)))
    facts.append(
        sorted(
            (qualname, sorted(names))
            for qualname, names in accelerator_params(code.functions, code.imports).items()
        )
    )
    _, mentioned, passed = _names_used(code.body)
    facts.append((bool(mentioned & SEED_NAMES), sorted(passed), sorted(_fields_given(code.body))))
    return _digest(serial.dumps(facts))


class UnitIndex:
    """A module's units by name, for their digests."""

    def __init__(self, code: ir.ModuleCode) -> None:
        self._code = code
        self._functions = {function.qualname: function for function in code.functions}
        self._classes = {cls.qualname: cls for cls in code.classes}

    def digest(self, unit: str) -> str:
        code = self._code
        value: object
        if unit.startswith(FUNCTION):
            value = self._functions.get(unit[len(FUNCTION) :])
        elif unit.startswith(CLASS):
            value = self._classes.get(unit[len(CLASS) :])
        elif unit.startswith(NAME):
            name = unit[len(NAME) :]
            value = (code.constants.get(name), code.imports.get(name))
        elif unit == BODY:
            value = code.body
        else:
            value = sorted(code.imports.items())
        return _digest(serial.dumps(value))


class NotingDict(dict[K, V]):
    """A dict that notes every key it holds that is looked up once ``noted`` is set: the units
    a run consulted. A missing key is not noted: which functions and classes a module has is
    part of its shape."""

    noted: set[K] | None = None

    def __getitem__(self, key: K) -> V:
        value = super().__getitem__(key)
        if self.noted is not None:
            self.noted.add(key)
        return value

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        if self.noted is not None and super().__contains__(key):
            self.noted.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        found = super().__contains__(key)
        if found and self.noted is not None:
            self.noted.add(key)  # type: ignore[arg-type]
        return found


def still_holds(
    dependencies: Dependencies,
    fingerprint: str,
    modules: dict[str, tuple[str, str, str]],
    load_code: Callable[[str], ir.ModuleCode | None],
) -> bool:
    """Whether a result with these dependencies is the result for the project whose modules
    are ``modules`` (name -> path, code digest, shape); ``load_code`` gives a module's code,
    read only for a module whose code changed."""
    if dependencies.fingerprint != fingerprint or dependencies.modules.keys() != modules.keys():
        return False
    for name, (path, digest, shape) in modules.items():
        old_path, old_digest, old_shape = dependencies.modules[name]
        if path != old_path or shape != old_shape or not shape:
            return False
        consulted = dependencies.consulted.get(name)
        if digest == old_digest or not consulted:
            continue
        code = load_code(name)
        if code is None:
            return False
        index = UnitIndex(code)
        if any(index.digest(unit) != old for unit, old in consulted.items()):
            return False
    return True
