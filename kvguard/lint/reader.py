"""How code is read: parsed libcst segments of a file in, the lowered IR out.

Reading is syntax only: names, calls, assignments and control flow, with positions.
What the code means for stream ordering is the interpreter's business.
"""

from __future__ import annotations

import bisect
import contextlib
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import libcst as cst

from kvguard.lint import ir
from kvguard.lint.findings import Span
from kvguard.lint.positions import Position, positions


@dataclass(frozen=True)
class Segment:
    """A parsed file, or some of its top-level statements joined into one module: ``starts``
    pairs the module line where each joined piece starts with its line in the file."""

    module: cst.Module
    starts: tuple[tuple[int, int], ...] = ((1, 1),)

    def offset_at(self, line: int) -> int:
        """How far the file line of a statement starting at this module line is from it."""
        index = bisect.bisect_right(self.starts, (line, sys.maxsize)) - 1
        start, first = self.starts[max(index, 0)]
        return first - start


class ModuleReader:
    def __init__(self, segments: Sequence[Segment]) -> None:
        self._segments = segments
        self._positions: Mapping[int, Position] = {}
        self._offset = 0
        self._globals: list[set[str]] = []
        # The ``:=`` bindings of the test being read, which run before it (None: not in a test).
        self._bindings: list[ir.Stmt] | None = None
        self.code = ir.ModuleCode()

    def read(self) -> ir.ModuleCode:
        for segment in self._segments:
            self._positions = positions(segment.module)
            body = segment.module.body
            offsets = [segment.offset_at(self._positions[id(statement)][0]) for statement in body]
            self._module_level(body, offsets)
        return self.code

    # ------------------------------------------------------------ module level
    def _module_level(self, body: Sequence[cst.BaseStatement], offsets: Sequence[int]) -> None:
        """Names first, then definitions, then module code, each statement at its offset."""
        for statement, self._offset in zip(body, offsets, strict=True):
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._names(small)
            elif isinstance(statement, (cst.If, cst.Try)):
                # Imports under TYPE_CHECKING or in try/except fallbacks still name things.
                for inner in _suite(statement.body):
                    if isinstance(inner, cst.SimpleStatementLine):
                        for small in inner.body:
                            self._names(small)
        for statement, self._offset in zip(body, offsets, strict=True):
            self._definitions([statement], prefix="", class_name="")
        for statement, self._offset in zip(body, offsets, strict=True):
            self.code.body.extend(self._block([statement]))

    def _names(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                dotted = _dotted(alias.name)
                if alias.asname is not None:
                    self.code.imports[_as_name(alias)] = dotted
                else:
                    head = dotted.split(".")[0]
                    self.code.imports[head] = head
        elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
            base = "." * len(small.relative) + (_dotted(small.module) if small.module else "")
            for alias in small.names:
                name = _dotted(alias.name)
                imported = f"{base}{name}" if base.endswith(".") else f"{base}.{name}"
                self.code.imports[_as_name(alias) or name] = imported
        elif isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for target in targets:
                if isinstance(target, cst.Name):
                    self.code.constants[target.value] = self._expr(small.value)

    def _definitions(self, body: Sequence[cst.BaseStatement], prefix: str, class_name: str) -> None:
        for statement in body:
            if isinstance(statement, cst.FunctionDef):
                self._function(statement, prefix, class_name)
            elif isinstance(statement, cst.ClassDef):
                qualname = f"{prefix}{statement.name.value}"
                self.code.classes.append(
                    ir.Class(
                        name=statement.name.value,
                        qualname=qualname,
                        bases=tuple(self._expr(base.value) for base in statement.bases),
                        fields=_fields(statement),
                        span=self._span(statement.name),
                        defaults=self._field_defaults(statement),
                        constants=self._class_constants(statement),
                        field_types=self._field_types(statement),
                    )
                )
                self._definitions(_suite(statement.body), f"{qualname}.", qualname)
            elif isinstance(statement, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
                self._definitions(_suite(statement.body), prefix, class_name)

    def _class_constants(self, node: cst.ClassDef) -> tuple[tuple[str, ir.Expr], ...]:
        """Class attributes assigned a value in the class body (``Any = 3``)."""
        found: list[tuple[str, ir.Expr]] = []
        for statement in _suite(node.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                ):
                    found.append((small.targets[0].target.value, self._expr(small.value)))
        return tuple(found)

    def _field_types(self, node: cst.ClassDef) -> tuple[tuple[str, ir.Expr], ...]:
        """The class each annotated field holds, where its annotation names one."""
        found: list[tuple[str, ir.Expr]] = []
        for statement in _suite(node.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    named = self._expr(_unwrapped_optional(small.annotation.annotation))
                    if isinstance(named, (ir.Name, ir.Attr)):
                        found.append((small.target.value, named))
        return tuple(found)

    def _field_defaults(self, node: cst.ClassDef) -> tuple[tuple[str, ir.Expr], ...]:
        """Defaults of annotated fields (``ready: Event = field(default_factory=Event)``)."""
        found: list[tuple[str, ir.Expr]] = []
        for statement in _suite(node.body):
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
                    continue
                value = small.value
                if value is None:
                    continue
                if isinstance(value, cst.Call) and _dotted(value.func).rsplit(".", 1)[-1] == "field":
                    given = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
                    if "default_factory" in given:
                        factory = self._expr(given["default_factory"])
                        call = ir.Call(factory, (), (), self._span(value), self._lines(value))
                        found.append((small.target.value, call))
                    elif "default" in given:
                        found.append((small.target.value, self._expr(given["default"])))
                    continue
                found.append((small.target.value, self._expr(value)))
        return tuple(found)

    def _function(self, node: cst.FunctionDef, prefix: str, class_name: str) -> None:
        params: list[ir.Param] = []
        p = node.params
        for param in (*p.posonly_params, *p.params):
            params.append(self._param(param))
        if isinstance(p.star_arg, cst.Param):
            params.append(ir.Param(p.star_arg.name.value, None, "*"))
        for param in p.kwonly_params:
            params.append(self._param(param))
        if p.star_kwarg is not None:
            params.append(ir.Param(p.star_kwarg.name.value, None, "**"))
        qualname = f"{prefix}{node.name.value}"
        self._globals.append(set())
        body = tuple(self._suite_block(node.body))
        global_names = tuple(sorted(self._globals.pop()))
        self.code.functions.append(
            ir.Function(
                name=node.name.value,
                qualname=qualname,
                params=tuple(params),
                body=body,
                decorators=tuple(self._expr(d.decorator) for d in node.decorators),
                span=self._span(node.name),
                class_name=class_name,
                global_names=global_names,
                is_async=node.asynchronous is not None,
            )
        )
        # Nested functions are their own functions (they run when called, not here).
        self._definitions(_suite(node.body), f"{qualname}.", "")

    # --------------------------------------------------------------- statements
    def _suite_block(self, suite: cst.BaseSuite) -> Iterator[ir.Stmt]:
        if isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                yield from self._small(small)
        else:
            yield from self._block(_suite(suite))

    def _block(self, statements: Sequence[cst.BaseStatement]) -> Iterator[ir.Stmt]:
        for statement in statements:
            yield from self._statement(statement)

    def _statement(self, statement: cst.BaseStatement) -> Iterator[ir.Stmt]:
        span = self._span(statement)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                yield from self._small(small)
        elif isinstance(statement, cst.If):
            orelse: tuple[ir.Stmt, ...] = ()
            if isinstance(statement.orelse, cst.If):
                orelse = tuple(self._statement(statement.orelse))
            elif isinstance(statement.orelse, cst.Else):
                orelse = tuple(self._suite_block(statement.orelse.body))
            bindings, test = self._test(statement.test)
            yield from bindings
            yield ir.If(
                test,
                tuple(self._suite_block(statement.body)),
                orelse,
                span,
                statement.orelse is not None,
            )
        elif isinstance(statement, cst.For):
            yield ir.Loop(
                self._expr(statement.target),
                self._expr(statement.iter),
                tuple(self._suite_block(statement.body)),
                tuple(self._suite_block(statement.orelse.body)) if statement.orelse else (),
                span,
            )
        elif isinstance(statement, cst.While):
            body = tuple(self._suite_block(statement.body))
            orelse = tuple(self._suite_block(statement.orelse.body)) if statement.orelse else ()
            # A loop's ``else`` may ``break`` out of an enclosing loop: only a loop without one
            # is read as the ``while True`` below, the test's bindings unread otherwise.
            bindings, test = self._test(statement.test) if not orelse else ((), self._expr(statement.test))
            if bindings:
                # ``while (job := q.get()) is not None:`` binds before each test: a ``while True``
                # whose turn binds, then leaves where the test fails.
                leave = ir.If(_negated(test), (ir.Jump(True, span),), (), span, False)
                yield ir.Loop(None, ir.Const(True, span), (*bindings, leave, *body), (), span)
            else:
                yield ir.Loop(None, test, body, orelse, span)
        elif isinstance(statement, cst.With):
            items = tuple(
                (
                    self._expr(item.item),
                    self._expr(item.asname.name) if item.asname is not None else None,
                )
                for item in statement.items
            )
            yield ir.With(items, tuple(self._suite_block(statement.body)), span)
        elif isinstance(statement, cst.Try):
            yield ir.Try(
                tuple(self._suite_block(statement.body)),
                tuple(tuple(self._suite_block(h.body)) for h in statement.handlers),
                tuple(self._suite_block(statement.orelse.body)) if statement.orelse else (),
                tuple(self._suite_block(statement.finalbody.body)) if statement.finalbody else (),
                span,
            )
        elif isinstance(statement, cst.Match):
            # One arm per case; a match without a wildcard may run none (an empty arm).
            arms = [tuple(self._suite_block(case.body)) for case in statement.cases]
            yield _branches(self._expr(statement.subject), arms, span)

    def _small(self, small: cst.BaseSmallStatement) -> Iterator[ir.Stmt]:
        span, lines = self._span(small), self._lines(small)
        if isinstance(small, cst.Assign):
            value = small.value
            if isinstance(value, cst.Yield):
                yield ir.Yield(self._optional(value.value), span)
                return
            yield ir.Assign(
                tuple(self._expr(t.target) for t in small.targets), self._expr(value), span, lines
            )
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                yield ir.Assign((self._expr(small.target),), self._expr(small.value), span, lines)
        elif isinstance(small, cst.AugAssign):
            yield ir.AugAssign(self._expr(small.target), self._expr(small.value), span, lines)
        elif isinstance(small, cst.Expr):
            if isinstance(small.value, cst.Yield):
                yield ir.Yield(self._optional(small.value.value), span)
            else:
                awaited = isinstance(small.value, cst.Await)
                yield ir.Eval(self._expr(small.value), span, lines, awaited)
        elif isinstance(small, cst.Assert):
            # The test runs (``assert handle.async_pwrite(buf, path) == 0`` issues the write).
            yield ir.Eval(self._expr(small.test), span, lines, False)
        elif isinstance(small, cst.Return):
            yield ir.Return(self._optional(small.value), span)
        elif isinstance(small, cst.Raise):
            yield ir.Raise(self._optional(small.exc), span)
        elif isinstance(small, (cst.Break, cst.Continue)):
            yield ir.Jump(isinstance(small, cst.Break), span)
        elif isinstance(small, cst.Global) and self._globals:
            self._globals[-1].update(name.name.value for name in small.names)

    # -------------------------------------------------------------- expressions
    def _test(self, node: cst.BaseExpression) -> tuple[tuple[ir.Stmt, ...], ir.Expr]:
        """A statement's test, with the assignments its ``:=`` make, to run before it."""
        bindings: list[ir.Stmt] = []
        with self._binding_into(bindings):
            test = self._expr(node)
        return tuple(bindings), test

    @contextlib.contextmanager
    def _binding_into(self, bindings: list[ir.Stmt] | None) -> Iterator[None]:
        """Where the ``:=`` read meanwhile go: into ``bindings``, or nowhere (None)."""
        outer, self._bindings = self._bindings, bindings
        try:
            yield
        finally:
            self._bindings = outer

    def _param(self, param: cst.Param) -> ir.Param:
        """A named parameter, with its annotation where that names one class (``env:
        ExecutionEnv``)."""
        named = self._expr(param.annotation.annotation) if param.annotation is not None else None
        annotation = named if isinstance(named, (ir.Name, ir.Attr)) else None
        return ir.Param(param.name.value, self._optional(param.default), annotation=annotation)

    def _optional(self, node: cst.BaseExpression | cst.CSTNode | None) -> ir.Expr | None:
        return self._expr(node) if isinstance(node, cst.BaseExpression) else None

    def _expr(self, node: cst.CSTNode) -> ir.Expr:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return ir.Const(node.value == "True", self._span(node))
            if node.value == "None":
                return ir.Const(None, self._span(node))
            return ir.Name(node.value, self._span(node))
        if isinstance(node, cst.Attribute):
            return ir.Attr(self._expr(node.value), node.attr.value, self._span(node))
        if isinstance(node, cst.Call):
            args: list[ir.Expr] = []
            kwargs: list[tuple[str, ir.Expr]] = []
            star = False
            for arg in node.args:
                if arg.star == "*":
                    star = True
                    args.append(ir.Starred(self._expr(arg.value)))
                elif arg.star:
                    star = True
                    kwargs.append((ir.SPLAT, self._expr(arg.value)))  # ``f(**options)``
                elif arg.keyword is not None:
                    kwargs.append((arg.keyword.value, self._expr(arg.value)))
                else:
                    args.append(self._expr(arg.value))
            return ir.Call(
                self._expr(node.func), tuple(args), tuple(kwargs), self._span(node), self._lines(node), star
            )
        if isinstance(node, cst.Integer):
            return ir.Const(int(node.value.replace("_", ""), 0), self._span(node))
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            value = node.evaluated_value
            return ir.Const(value if isinstance(value, (str, bytes)) else None, self._span(node))
        if isinstance(node, cst.FormattedString) and node.parts:
            head = node.parts[0]
            kind = _DEVICE_SPEC.match(head.value) if isinstance(head, cst.FormattedStringText) else None
            if kind is not None:
                return ir.Const(kind.group(0), self._span(node))  # ``f"cuda:{rank}"``: that kind of device
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            return ir.Seq(
                tuple(
                    ir.Starred(self._expr(e.value))
                    if isinstance(e, cst.StarredElement)
                    else self._expr(e.value)
                    for e in node.elements
                )
            )
        if isinstance(node, cst.Dict):
            return self._dict(node)
        if isinstance(node, cst.Await):
            return self._expr(node.expression)  # ``await f()`` runs f's body here, in order
        if isinstance(node, cst.Subscript):
            indexes = [element.slice for element in node.slice]
            key: ir.Expr = ir.Opaque()
            if all(isinstance(index, cst.Index) for index in indexes):
                values = tuple(self._expr(index.value) for index in indexes if isinstance(index, cst.Index))
                # ``x[a, b]`` indexes by the tuple ``(a, b)`` (numba's launch configurations).
                key = values[0] if len(values) == 1 else ir.Seq(values)
            return ir.Index(self._expr(node.value), key)
        if isinstance(node, cst.IfExp):
            return ir.Cond(self._unbound(node.body), self._expr(node.test), self._unbound(node.orelse))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return ir.Not(self._expr(node.expression))
        if (
            isinstance(node, cst.Comparison)
            and len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot))
            and isinstance(node.comparisons[0].comparator, cst.Name)
            and node.comparisons[0].comparator.value == "None"
        ):
            return ir.IsNone(self._expr(node.left), isinstance(node.comparisons[0].operator, cst.IsNot))
        if (
            isinstance(node, cst.Comparison)
            and len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot))
        ):
            # ``kind is Move.ONBOARD`` tests an enum member as ``==`` does.
            comparison = node.comparisons[0]
            return ir.Equals(
                self._expr(node.left),
                self._expr(comparison.comparator),
                isinstance(comparison.operator, (cst.NotEqual, cst.IsNot)),
                self._span(node),
                self._lines(node),
                isinstance(comparison.operator, (cst.Is, cst.IsNot)),
            )
        if isinstance(node, cst.BooleanOperation):
            # What the right operand binds runs only where the left does not decide: not bound
            # before the statement.
            left, right = self._expr(node.left), self._unbound(node.right)
            if isinstance(node.operator, cst.Or):
                return ir.Or(left, right)
            return ir.Opaque((left, right), conjunction=True)
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in _OPERATOR_SYMBOLS:
            return self._operator(node, node.operator, (node.left, node.right))
        if isinstance(node, cst.UnaryOperation) and type(node.operator) in _OPERATOR_SYMBOLS:
            return self._operator(node, node.operator, (node.expression,))
        if (
            isinstance(node, cst.Comparison)
            and len(node.comparisons) == 1
            and type(node.comparisons[0].operator) in _OPERATOR_SYMBOLS
        ):
            comparison = node.comparisons[0]
            return self._operator(node, comparison.operator, (node.left, comparison.comparator))
        if isinstance(node, cst.Yield):
            return ir.Opaque()
        if isinstance(node, cst.NamedExpr):
            bound = self._expr(node.value)
            if self._bindings is None:
                return bound  # bound where no statement can run first: its value, unbound
            target = self._expr(node.target)
            self._bindings.append(ir.Assign((target,), bound, self._span(node), self._lines(node)))
            return target
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp, cst.Lambda)):
            # What a comprehension's or lambda's ``:=`` binds is bound per element, or in the
            # lambda's own scope: nothing runs before the statement.
            with self._binding_into(None):
                return self._scoped(node)
        # Anything else: keep the parts whose calls may matter.
        return ir.Opaque(tuple(self._expr(child) for child in _expression_children(node)))

    def _unbound(self, node: cst.BaseExpression) -> ir.Expr:
        """An expression that runs only on some paths through its statement: what its ``:=``
        bind is not bound before the statement."""
        with self._binding_into(None):
            return self._expr(node)

    def _scoped(
        self, node: cst.ListComp | cst.GeneratorExp | cst.SetComp | cst.DictComp | cst.Lambda
    ) -> ir.Expr:
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            clause = node.for_in
            return ir.Comp(self._expr(node.elt), self._expr(clause.target), self._expr(clause.iter))
        if isinstance(node, cst.DictComp):
            # A container of its values, as a dict display with computed keys is; keyed by
            # each element where the code spells them (``{k: f(k) for k in Kind}``).
            clause = node.for_in
            return ir.Comp(
                self._expr(node.value),
                self._expr(clause.target),
                self._expr(clause.iter),
                self._expr(node.key),
            )
        params = tuple(param.name.value for param in node.params.params)
        return ir.Lambda(params, self._expr(node.body), self._span(node))

    def _operator(
        self, node: cst.BaseExpression, operator: cst.CSTNode, operands: tuple[cst.BaseExpression, ...]
    ) -> ir.Operator:
        return ir.Operator(
            _OPERATOR_SYMBOLS[type(operator)],
            tuple(self._expr(operand) for operand in operands),
            self._span(node),
            self._lines(node),
        )

    def _dict(self, node: cst.Dict) -> ir.Expr:
        """A dict display: with string keys, a record of its fields (``{"load": s1, ...}``);
        otherwise a container of its values (``{}`` is an empty one the code fills)."""
        elements = [e for e in node.elements if isinstance(e, cst.DictElement)]
        splats = tuple(self._expr(e.value) for e in node.elements if isinstance(e, cst.StarredDictElement))
        keys = [e.key.evaluated_value if isinstance(e.key, cst.SimpleString) else None for e in elements]
        values = tuple(self._expr(e.value) for e in elements)
        if (elements or splats) and all(isinstance(k, str) for k in keys):
            # ``{**DEFAULTS, "order": x}``: the dicts spread into it, then its own entries.
            fields = tuple((str(key), value) for key, value in zip(keys, values, strict=True))
            return ir.Call(ir.Name("dict"), splats, fields, self._span(node), self._lines(node))
        if elements and not splats:
            return ir.Seq(values, tuple(self._expr(e.key) for e in elements))
        return ir.Seq(values)

    # ----------------------------------------------------------------- positions
    def _span(self, node: cst.CSTNode) -> Span:
        line, column, end_line, end_column = self._positions[id(node)]
        return Span(line + self._offset, column + 1, end_line + self._offset, end_column + 1)

    def _lines(self, node: cst.CSTNode) -> tuple[int, int]:
        line, _, end_line, _ = self._positions[id(node)]
        return (line + self._offset, end_line + self._offset)


def _negated(test: ir.Expr) -> ir.Expr:
    """``not test``, spelt as the tests that prune paths are (``x is None`` for ``x is not None``)."""
    if isinstance(test, (ir.IsNone, ir.Equals)):
        return replace(test, negated=not test.negated)
    if isinstance(test, ir.Not):
        return test.operand
    return ir.Not(test)


def _branches(subject: ir.Expr, arms: list[tuple[ir.Stmt, ...]], span: Span) -> ir.If:
    """A match statement as nested ifs: each case may run, or none."""
    orelse: tuple[ir.Stmt, ...] = ()
    for arm in reversed(arms):
        orelse = (ir.If(subject, arm, orelse, span, True),)
    return orelse[0] if orelse else ir.If(subject, (), (), span, False)  # type: ignore[return-value]


# The kind of device an f-string names by its leading text (``f"cuda:{local_rank}"``).
_DEVICE_SPEC = re.compile(r"^(?:cuda|cpu|xpu|npu|hip|mps):")

# Operators that compute on tensors (elementwise or reducing): ``is``, ``in``, ``==`` and
# the boolean ones are read as the tests they usually are.
_OPERATOR_SYMBOLS: dict[type[cst.CSTNode], str] = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.MatrixMultiply: "@",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
    cst.Minus: "-",
    cst.BitInvert: "~",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
}


def _expression_children(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """Nearest expressions below a node (through comprehension clauses, slices, arguments)."""
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            yield child
        else:
            yield from _expression_children(child)


def _fields(node: cst.ClassDef) -> tuple[str, ...]:
    """Declared field names: annotated class attributes, or a ctypes ``_fields_`` list."""
    names: list[str] = []
    for statement in _suite(node.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                names.append(small.target.value)
            elif (
                isinstance(small, cst.Assign)
                and any(
                    isinstance(t.target, cst.Name) and t.target.value == "_fields_" for t in small.targets
                )
                and isinstance(small.value, (cst.List, cst.Tuple))
            ):
                for element in small.value.elements:
                    if isinstance(element.value, cst.Tuple) and element.value.elements:
                        first = element.value.elements[0].value
                        if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
                            names.append(first.evaluated_value)
    return tuple(names)


def _unwrapped_optional(node: cst.BaseExpression) -> cst.BaseExpression:
    """``Optional[T]`` and ``T | None`` as T; anything else as it is."""
    if (
        isinstance(node, cst.Subscript)
        and _dotted(node.value).rsplit(".", 1)[-1] == "Optional"
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
    ):
        return node.slice[0].slice.value
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        if isinstance(node.right, cst.Name) and node.right.value == "None":
            return node.left
        if isinstance(node.left, cst.Name) and node.left.value == "None":
            return node.right
    return node


def _suite(body: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    return body.body if isinstance(body, cst.IndentedBlock) else []


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _as_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return ""
