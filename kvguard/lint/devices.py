"""Parameters that hold an accelerator's device, by what the code itself does with them.

A connector made with ``device`` by code outside the project allocates on ``device=device``:
where that memory lives is not said. But if the same value makes a CUDA stream
(``torch.cuda.Stream(device=self.device)``) or selects the CUDA device, it is an accelerator's
device, since those APIs take no other. Such a parameter is read as one where no caller in the
project gives it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kvguard.lint import ir
from kvguard.lint.api import ACCELERATOR_DEVICE_CALLS, ACCELERATOR_MODULES
from kvguard.lint.reading import _nested, calls_in


def accelerator_params(
    functions: Sequence[ir.Function], imports: dict[str, str]
) -> dict[str, frozenset[str]]:
    """Each function's parameters (by qualname) whose value the module's code hands to an API
    that takes only an accelerator's device, directly or through a field of the same class
    (``self.device = device`` in one method, ``Stream(device=self.device)`` in another)."""
    direct: dict[str, set[str]] = {}
    fields: set[tuple[str, str]] = set()  # (class, field)
    for function in functions:
        params = {param.name for param in function.params if not param.star}
        owner = function.params[0].name if function.class_name and function.params else ""
        derived = _derived_from_params(function.body, params, imports)
        for device in _devices_given(function.body, imports):
            if isinstance(device, ir.Name) and (name := derived.get(device.id, device.id)) in params:
                direct.setdefault(function.qualname, set()).add(name)
            elif owner and isinstance(device, ir.Attr) and _is_field_of(device, owner):
                fields.add((function.class_name, device.name))
    for function in functions:
        if not function.class_name or not function.params:
            continue
        owner = function.params[0].name
        params = {param.name for param in function.params[1:] if not param.star}
        for statement in _nested(function.body):
            if not isinstance(statement, ir.Assign):
                continue
            value = _unwrapped(statement.value, imports)
            if not (isinstance(value, ir.Name) and value.id in params):
                continue
            for target in statement.targets:
                if (
                    isinstance(target, ir.Attr)
                    and _is_field_of(target, owner)
                    and (function.class_name, target.name) in fields
                ):
                    direct.setdefault(function.qualname, set()).add(value.id)
    return {qualname: frozenset(names) for qualname, names in direct.items()}


def _derived_from_params(
    statements: Sequence[ir.Stmt], params: set[str], imports: dict[str, str]
) -> dict[str, str]:
    """Locals made from one parameter alone (``dev = resolve_device(device)``), by the
    parameter: a device made from it names the device it does."""
    derived: dict[str, str] = {}
    for statement in _nested(statements):
        if not (isinstance(statement, ir.Assign) and len(statement.targets) == 1):
            continue
        target, value = statement.targets[0], _unwrapped(statement.value, imports)
        if isinstance(value, ir.Call) and len(value.args) == 1 and not value.kwargs:
            value = value.args[0]
        if isinstance(target, ir.Name) and isinstance(value, ir.Name) and value.id in params:
            derived[target.id] = value.id
    return derived


def _devices_given(statements: Sequence[ir.Stmt], imports: dict[str, str]) -> Iterable[ir.Expr]:
    """The device arguments of calls, anywhere in the statements, to APIs that take only an
    accelerator's device."""
    for call in calls_in(statements):
        if not isinstance(call.func, ir.Attr) or call.star_args:
            continue
        keywords = dict(call.kwargs)
        module = _dotted(call.func.base, imports)
        if call.func.name in ("Stream", "Event") and "device" in keywords and module != "torch.cpu":
            # A device module's stream or event (``torch.get_device_module(d).Stream(device=d)``,
            # ``torch.Event(device=d)``).
            yield _unwrapped(keywords["device"], imports)
        elif module in ACCELERATOR_MODULES and call.func.name in ACCELERATOR_DEVICE_CALLS:
            device = keywords.get("device", call.args[0] if call.args else None)
            if device is not None:
                yield _unwrapped(device, imports)


def _unwrapped(expr: ir.Expr, imports: dict[str, str]) -> ir.Expr:
    """``torch.device(d)`` as ``d``: the same device."""
    if (
        isinstance(expr, ir.Call)
        and len(expr.args) == 1
        and not expr.kwargs
        and _dotted(expr.func, imports) == "torch.device"
    ):
        return expr.args[0]
    return expr


def _is_field_of(expr: ir.Expr, owner: str) -> bool:
    return isinstance(expr, ir.Attr) and isinstance(expr.base, ir.Name) and expr.base.id == owner


def _dotted(expr: ir.Expr, imports: dict[str, str]) -> str:
    """What an imported name and its attributes spell (``torch.cuda`` for ``cuda`` imported
    from torch); "" for anything else."""
    if isinstance(expr, ir.Name):
        return imports.get(expr.id, "")
    if isinstance(expr, ir.Attr):
        base = _dotted(expr.base, imports)
        return f"{base}.{expr.name}" if base else ""
    return ""
