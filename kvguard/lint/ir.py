"""The lowered form of a file that the analysis interprets: small, picklable, cacheable.

The reader turns libcst trees into this IR once per file content; the interpreter never
sees libcst. Expressions keep only what stream-ordering analysis can use (names,
attributes, calls with their arguments, constants, tuples, conditionals); anything else
becomes ``Opaque``, whose sub-expressions still run (their calls may matter).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kvguard.lint.findings import Span


@dataclass(frozen=True)
class Name:
    id: str
    span: Span | None = None


@dataclass(frozen=True)
class Attr:
    base: Expr
    name: str
    span: Span | None = None


# The keyword under which a call's ``**mapping`` argument is kept.
SPLAT = "**"


@dataclass(frozen=True)
class Call:
    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    span: Span
    lines: tuple[int, int]
    star_args: bool = False  # *args or **kwargs present: positions cannot be trusted


@dataclass(frozen=True)
class Const:
    value: int | float | str | bytes | bool | None
    span: Span


@dataclass(frozen=True)
class Seq:
    """A tuple or list display; or a dict display whose keys are not all strings, its values
    with the key expressions beside them (``{(GPU, CPU): ANY}``, ``{Kind.LOAD: s}``)."""

    items: tuple[Expr, ...]
    keys: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Index:
    base: Expr
    index: Expr


@dataclass(frozen=True)
class Cond:
    then: Expr
    test: Expr
    orelse: Expr


@dataclass(frozen=True)
class Not:
    operand: Expr


@dataclass(frozen=True)
class Comp:
    """A comprehension ``[element for target in iterable]`` (its first ``for`` clause); a
    dict comprehension's ``key`` too."""

    element: Expr
    target: Expr
    iterable: Expr
    key: Expr | None = None


@dataclass(frozen=True)
class IsNone:
    """``x is None`` (or ``is not None`` when negated): it prunes paths."""

    operand: Expr
    negated: bool


@dataclass(frozen=True)
class Equals:
    """``left == right`` (or ``!=`` when negated): a test on a tag or a flag prunes paths."""

    left: Expr
    right: Expr
    negated: bool
    span: Span | None = None
    lines: tuple[int, int] = (0, 0)
    identity: bool = False  # ``is`` / ``is not``: no element is read


@dataclass(frozen=True)
class Or:
    """``left or right``: left where it is true, else right."""

    left: Expr
    right: Expr


@dataclass(frozen=True)
class Operator:
    """An arithmetic, bitwise or ordering operator (``a + b``, ``x > 0``, ``-x``): on host
    tensors it runs on the CPU at once, reading its operands."""

    symbol: str
    operands: tuple[Expr, ...]
    span: Span
    lines: tuple[int, int]


@dataclass(frozen=True)
class Opaque:
    parts: tuple[Expr, ...] = ()
    conjunction: bool = False  # ``left and right``: each part holds where the whole does


@dataclass(frozen=True)
class Starred:
    """``*items`` among a call's arguments: its elements are arguments in turn."""

    value: Expr


@dataclass(frozen=True)
class Lambda:
    """``lambda a, b: body``: a function whose body is one expression, over the names it sees."""

    params: tuple[str, ...]
    body: Expr
    span: Span


Expr = (
    Name
    | Attr
    | Call
    | Const
    | Seq
    | Index
    | Cond
    | Not
    | IsNone
    | Equals
    | Comp
    | Or
    | Operator
    | Opaque
    | Starred
    | Lambda
)


@dataclass(frozen=True)
class Assign:
    targets: tuple[Expr, ...]
    value: Expr
    span: Span
    lines: tuple[int, int]


@dataclass(frozen=True)
class AugAssign:
    target: Expr
    value: Expr
    span: Span
    lines: tuple[int, int]


@dataclass(frozen=True)
class Eval:
    value: Expr
    span: Span
    lines: tuple[int, int]
    awaited: bool = False  # ``await f()``: an un-awaited coroutine call runs nothing


@dataclass(frozen=True)
class Return:
    value: Expr | None
    span: Span


@dataclass(frozen=True)
class Jump:
    """``break`` (leaves the loop) or ``continue`` (starts its next turn)."""

    leaves: bool
    span: Span


@dataclass(frozen=True)
class Raise:
    """``raise``: the path ends, unless a ``try`` of the same function around it catches it."""

    value: Expr | None
    span: Span


@dataclass(frozen=True)
class Yield:
    value: Expr | None
    span: Span


@dataclass(frozen=True)
class If:
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    span: Span
    has_else: bool


@dataclass(frozen=True)
class Loop:
    target: Expr | None
    iter: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True)
class Try:
    body: tuple[Stmt, ...]
    handlers: tuple[tuple[Stmt, ...], ...]
    orelse: tuple[Stmt, ...]
    final: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True)
class With:
    items: tuple[tuple[Expr, Expr | None], ...]
    body: tuple[Stmt, ...]
    span: Span


Stmt = Assign | AugAssign | Eval | Return | Raise | Jump | Yield | If | Loop | Try | With


@dataclass(frozen=True)
class Param:
    name: str
    default: Expr | None
    star: str = ""  # "", "*" or "**"
    # A plain class annotation (``env: ExecutionEnv``); not ``Optional[...]`` nor a string.
    annotation: Name | Attr | None = None


@dataclass(frozen=True)
class Function:
    name: str
    qualname: str  # within the module: "Class.method", "outer.inner"
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...]
    span: Span
    class_name: str = ""  # the enclosing class for methods
    global_names: tuple[str, ...] = ()  # names declared ``global`` in the body
    is_async: bool = False


@dataclass(frozen=True)
class Class:
    name: str
    qualname: str
    bases: tuple[Expr, ...]
    # Field names in declaration order (NamedTuple/dataclass annotations, ctypes _fields_).
    fields: tuple[str, ...]
    span: Span
    # What a field not given to the constructor holds: its default, or a call of its
    # ``field(default_factory=f)``.
    defaults: tuple[tuple[str, Expr], ...] = ()
    # Plain class attributes (``Any = 3`` in an ``IntEnum``, ``ORDER = ...``): what the class
    # and its instances read under that name.
    constants: tuple[tuple[str, Expr], ...] = ()
    # The class an annotated field holds, where its annotation names one (``Optional[T]`` and
    # ``T | None`` name T).
    field_types: tuple[tuple[str, Expr], ...] = ()


@dataclass
class ModuleCode:
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted target
    constants: dict[str, Expr] = field(default_factory=dict)  # module-level NAME = expr
    functions: list[Function] = field(default_factory=list)
    classes: list[Class] = field(default_factory=list)
    body: list[Stmt] = field(default_factory=list)  # module-level statements
