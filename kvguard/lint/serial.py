"""Plain-data encoding of the analysis's dataclasses, for the cache.

Nothing read back can construct an object the reading code did not ask for: decoding is
driven by the type the caller expects (its annotations, resolved once), every value is
checked against it, and the only classes built are the dataclasses those annotations
name. A dataclass is encoded as ``[ClassName, field, ...]`` (the name chooses among the
members of a union), a tuple or a list as a list, a dict as a list of ``[key, value]``
pairs (keys need not be strings), bytes as ``{"bytes": hex}``, an enum member as its value.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

Decoder = Callable[[Any], Any]


class DecodeError(ValueError):
    """The data does not have the shape of the expected type."""


def dumps(value: object) -> bytes:
    return json.dumps(_encode(value), separators=(",", ":"), allow_nan=True).encode("utf-8")


def loads(data: bytes, expected: type[T]) -> T:
    """The value of type ``expected`` that ``data`` encodes; DecodeError if it encodes none."""
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise DecodeError(f"not JSON: {error}") from None
    try:
        value: T = _decoder(expected)(raw)
    except RecursionError:
        raise DecodeError("nested too deeply") from None
    return value


def _encode(value: object) -> object:
    kind = value.__class__
    encoder = _ENCODERS.get(kind)
    if encoder is None:
        encoder = _ENCODERS[kind] = _encoder_for(kind)
    return encoder(value)


def _same(value: object) -> object:
    return value


_ENCODERS: dict[type, Callable[[object], object]] = dict.fromkeys((type(None), bool, int, float, str), _same)


def _encoder_for(kind: type) -> Callable[[object], object]:
    if issubclass(kind, enum.Enum):
        return lambda value: _encode(value.value)  # type: ignore[attr-defined]
    if kind is bytes:
        return lambda value: {"bytes": value.hex()}  # type: ignore[attr-defined]
    if kind in (tuple, list) or _is_named_tuple(kind):
        return lambda value: list(map(_encode, value))  # type: ignore[call-overload]
    if kind is dict:
        return lambda value: [[_encode(k), _encode(v)] for k, v in value.items()]  # type: ignore[attr-defined]
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind, vars(sys.modules[kind.__module__]))
        # Fields whose annotation is a JSON scalar are written as they are; a value of another
        # type there is refused when read back, so the cache only misses.
        parts = [
            f"value.{f.name}" if hints[f.name] in (bool, int, str) else f"encode(value.{f.name})"
            for f in dataclasses.fields(kind)
        ]
        namespace: dict[str, object] = {"encode": _encode}
        source = f"def encode_one(value):\n    return [{kind.__name__!r}, {', '.join(parts)}]"
        exec(compile(source, f"<encoder of {kind.__name__}>", "exec"), namespace)
        return namespace["encode_one"]  # type: ignore[return-value]
    raise TypeError(f"cannot encode a {kind.__name__}")


_DECODERS: dict[object, Decoder] = {}
# Types whose decoder is being built, and the references to them made meanwhile (container,
# key): filled in once the decoder exists, so that a recursive type costs no forwarding call.
_BUILDING: set[object] = set()
_PENDING: list[tuple[dict[str, object], str, object]] = []


def _decoder(expected: object) -> Decoder:
    """The decoder for a type, built once."""
    known = _DECODERS.get(expected)
    if known is None:
        _BUILDING.add(expected)
        try:
            known = _DECODERS[expected] = _build(expected)
        finally:
            _BUILDING.discard(expected)
        if not _BUILDING:
            for container, key, target in _PENDING:
                container[key] = _DECODERS[target]
            _PENDING.clear()
    return known


def _refer(container: dict[str, object], key: str, expected: object) -> None:
    """container[key] = the decoder of ``expected``, now or once it is built."""
    if expected in _BUILDING:
        _PENDING.append((container, key, expected))
        container[key] = None
    else:
        container[key] = _decoder(expected)


def _fail(expected: object, raw: object) -> typing.NoReturn:
    shown = repr(raw)
    raise DecodeError(f"expected {expected}, found {shown[:60]}")


def _compiled(name: str, lines: list[str], namespace: dict[str, object]) -> Decoder:
    """A decoder function from source written here, out of kvguard's own type annotations;
    no decoded data ever reaches the source. Its globals are ``namespace``, where _refer
    fills in the decoders it calls. A lookup that fails on data of the wrong shape (a name
    that is no member of a union, an index into a number) is a DecodeError."""
    namespace.setdefault("fail", _fail)
    namespace["expected"] = name
    body = [
        "def decode(raw):",
        "    try:",
        *(f"        {line}" for line in lines),
        "    except (KeyError, IndexError, TypeError, AttributeError):",
        "        fail(expected, raw)",
    ]
    exec(compile("\n".join(body), f"<decoder of {name}>", "exec"), namespace)
    decode: Decoder = namespace["decode"]  # type: ignore[assignment]
    return decode


_PLAIN = {type(None): "NoneType", bool: "bool", int: "int", str: "str"}


def _is_dataclass(member: object) -> bool:
    return isinstance(member, type) and dataclasses.is_dataclass(member)


def _is_named_tuple(member: object) -> bool:
    return isinstance(member, type) and issubclass(member, tuple) and hasattr(member, "_fields")


def _expression(expected: object, value: str, namespace: dict[str, object]) -> str:
    """Source of an expression that decodes ``value`` (a name or a subscript, cheap to repeat)
    as ``expected``, calling as few functions as it can: JSON scalars are checked in place,
    and a union of dataclasses is a lookup of the encoded class name."""
    slot = f"_{len(namespace)}"
    if expected in _PLAIN:
        check = _PLAIN[expected]
        namespace[check] = expected
        return f"({value} if {value}.__class__ is {check} else fail({check}, {value}))"
    members = (
        typing.get_args(expected) if typing.get_origin(expected) in (typing.Union, types.UnionType) else ()
    )
    if len(members) == 2 and type(None) in members:
        (only,) = (m for m in members if m is not type(None))
        return f"(None if {value} is None else {_expression(only, value, namespace)})"
    classes = [m for m in members if _is_dataclass(m)]
    rest = [m for m in members if not _is_dataclass(m)]
    if classes and rest in ([], [type(None)]):
        by_name: dict[str, object] = {}
        for cls in classes:
            _refer(by_name, cls.__name__, cls)
        namespace[slot] = by_name
        lookup = f"{slot}[{value}[0]]({value})"
        return f"(None if {value} is None else {lookup})" if rest else lookup
    _refer(namespace, slot, expected)
    return f"{slot}({value})"


def _build(expected: object) -> Decoder:
    if expected is None:
        expected = type(None)
    name = getattr(expected, "__name__", str(expected))
    namespace: dict[str, object] = {}
    if expected in _PLAIN:
        return _compiled(name, [f"return {_expression(expected, 'raw', namespace)}"], namespace)
    if expected is float:
        return lambda raw: float(raw) if raw.__class__ in (int, float) else _fail(float, raw)
    if expected is bytes:
        return _decode_bytes
    if isinstance(expected, type) and issubclass(expected, enum.Enum):
        return _enum_decoder(expected)
    if _is_dataclass(expected):
        return _dataclass_decoder(expected)  # type: ignore[arg-type]
    if _is_named_tuple(expected):
        return _named_tuple_decoder(expected)  # type: ignore[arg-type]
    origin = typing.get_origin(expected)
    arguments = typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        classes = [m for m in arguments if _is_dataclass(m)]
        if classes and [m for m in arguments if not _is_dataclass(m)] in ([], [type(None)]):
            return _compiled(name, [f"return {_expression(expected, 'raw', namespace)}"], namespace)
        return _union_decoder(arguments)
    if origin in (tuple, list) and (origin is list or (len(arguments) == 2 and arguments[1] is Ellipsis)):
        item = _expression(arguments[0], "item", namespace)
        items = f"[{item} for item in raw]"
        if origin is tuple:
            items = f"tuple({items})"
        return _compiled(
            name, [f"return {items} if raw.__class__ is list else fail(expected, raw)"], namespace
        )
    if origin is tuple:
        items = "".join(
            f"{_expression(argument, f'raw[{i}]', namespace)}, " for i, argument in enumerate(arguments)
        )
        return _compiled(
            name,
            [
                f"if raw.__class__ is not list or len(raw) != {len(arguments)}:",
                "    fail(expected, raw)",
                f"return ({items})",
            ],
            namespace,
        )
    if origin is dict:
        key = _expression(arguments[0], "pair[0]", namespace)
        value = _expression(arguments[1], "pair[1]", namespace)
        return _compiled(
            name,
            [
                "if raw.__class__ is not list:",
                "    fail(expected, raw)",
                "decoded = {}",
                "for pair in raw:",
                "    if pair.__class__ is not list or len(pair) != 2:",
                "        fail(expected, raw)",
                f"    decoded[{key}] = {value}",
                "return decoded",
            ],
            namespace,
        )
    raise TypeError(f"kvguard.lint.serial cannot decode {expected!r}")


def _decode_bytes(raw: object) -> bytes:
    if raw.__class__ is dict and set(raw) == {"bytes"} and isinstance(raw["bytes"], str):
        try:
            return bytes.fromhex(raw["bytes"])
        except ValueError:
            pass
    _fail(bytes, raw)


def _enum_decoder(kind: type[enum.Enum]) -> Decoder:
    members = {member.value: member for member in kind}

    def decode(raw: object) -> enum.Enum:
        try:
            return members[raw]
        except (KeyError, TypeError):
            _fail(kind, raw)

    return decode


def _dataclass_decoder(kind: type) -> Decoder:
    """Stores what __init__ would store, without running it: a frozen dataclass's __init__
    sets each field through object.__setattr__, which cost more than the rest of the
    decoding. Only plain dataclasses (every field in __init__, no __post_init__)."""
    fields = dataclasses.fields(kind)
    if any(not f.init for f in fields) or hasattr(kind, "__post_init__") or hasattr(kind, "__slots__"):
        raise TypeError(f"{kind.__name__}: only plain dataclasses can be decoded")
    hints = typing.get_type_hints(kind, vars(sys.modules[kind.__module__]))
    namespace: dict[str, object] = {"kind": kind, "new": object.__new__}
    values = []
    for index, field in enumerate(fields, start=1):
        assert field.name.isidentifier()
        values.append(f"{field.name!r}: {_expression(hints[field.name], f'raw[{index}]', namespace)}")
    return _compiled(
        kind.__name__,
        [
            f"if raw.__class__ is not list or len(raw) != {len(fields) + 1} or raw[0] != {kind.__name__!r}:",
            "    fail(kind, raw)",
            "instance = new(kind)",
            "instance.__dict__.update({" + ", ".join(values) + "})",
            "return instance",
        ],
        namespace,
    )


def _named_tuple_decoder(kind: type) -> Decoder:
    hints = typing.get_type_hints(kind, vars(sys.modules[kind.__module__]))
    fields: tuple[str, ...] = kind._fields  # type: ignore[attr-defined]
    namespace: dict[str, object] = {"kind": kind, "new": tuple.__new__}
    items = ", ".join(
        _expression(hints[name], f"raw[{index}]", namespace) for index, name in enumerate(fields)
    )
    return _compiled(
        kind.__name__,
        [
            f"if raw.__class__ is not list or len(raw) != {len(fields)}:",
            "    fail(kind, raw)",
            f"return new(kind, ({items},))",
        ],
        namespace,
    )


# The JSON value classes each plain type is decoded from.
_JSON_CLASSES: dict[object, tuple[type, ...]] = {
    type(None): (type(None),),
    bool: (bool,),
    int: (int,),
    float: (float, int),
    str: (str,),
    bytes: (dict,),
}


def _union_decoder(members: tuple[object, ...]) -> Decoder:
    """A union with plain members: dataclass members are told apart by their encoded name,
    the others by the JSON class of the value (JSON's true is no number here); where two
    members take the same JSON class (two kinds of list), each is tried in turn."""
    by_name: dict[str, object] = {}
    for member in members:
        if _is_dataclass(member):
            _refer(by_name, member.__name__, member)  # type: ignore[attr-defined]
    by_class: dict[type, list[Decoder]] = {}
    for member in members:
        if _is_dataclass(member):
            continue
        if isinstance(member, type) and issubclass(member, enum.Enum):
            classes: tuple[type, ...] = tuple({type(item.value) for item in member})
        else:
            classes = _JSON_CLASSES.get(member, (list,))
        for json_class in classes:
            by_class.setdefault(json_class, []).append(_decoder(member))

    def decode(raw: object) -> object:
        if raw.__class__ is list and raw and raw[0].__class__ is str:
            named = by_name.get(raw[0])
            if named is not None:
                return named(raw)  # type: ignore[operator]
        candidates = by_class.get(raw.__class__, ())
        if len(candidates) == 1:
            return candidates[0](raw)
        for candidate in candidates:
            try:
                return candidate(raw)
            except DecodeError:
                continue
        _fail(members, raw)

    return decode
