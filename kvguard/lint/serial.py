"""Plain-data encoding of the analysis's dataclasses, for the cache.

Nothing read back can construct an object the reading code did not ask for: decoding is
driven by the type the caller expects (its annotations, resolved once), every value is
checked against it, and the only classes built are the dataclasses those annotations
name. A dataclass is encoded as ``[ClassName, field, ...]`` (the name chooses among the
members of a union), a tuple or a list as a list, a dict as a list of ``[key, value]``
pairs (keys need not be strings), bytes as ``{"bytes": hex}``, an enum member as its value.
"""

from __future__ import annotations

import contextlib
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
    if value is None or isinstance(value, (bool, int, float, str)):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, (tuple, list)):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        return [[_encode(key), _encode(item)] for key, item in value.items()]
    if isinstance(value, enum.Enum):
        return _encode(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__, *(_encode(getattr(value, f.name)) for f in dataclasses.fields(value))]
    raise TypeError(f"cannot encode a {type(value).__name__}")


_DECODERS: dict[object, Decoder] = {}


def _decoder(expected: object) -> Decoder:
    """The decoder for a type, built once; recursive types get a forwarding stub first."""
    known = _DECODERS.get(expected)
    if known is not None:
        return known
    built: list[Decoder] = []
    _DECODERS[expected] = lambda raw: built[0](raw)
    built.append(_build(expected))
    _DECODERS[expected] = built[0]
    return built[0]


def _fail(expected: object, raw: object) -> typing.NoReturn:
    shown = repr(raw)
    raise DecodeError(f"expected {expected}, found {shown[:60]}")


def _build(expected: object) -> Decoder:
    if expected is type(None) or expected is None:
        return lambda raw: raw if raw is None else _fail(None, raw)
    if expected is bool:
        return lambda raw: raw if isinstance(raw, bool) else _fail(bool, raw)
    if expected is int:
        return lambda raw: raw if type(raw) is int else _fail(int, raw)
    if expected is float:
        return lambda raw: float(raw) if type(raw) in (int, float) else _fail(float, raw)
    if expected is str:
        return lambda raw: raw if type(raw) is str else _fail(str, raw)
    if expected is bytes:
        return _decode_bytes
    if isinstance(expected, type) and issubclass(expected, enum.Enum):
        return _enum_decoder(expected)
    if isinstance(expected, type) and dataclasses.is_dataclass(expected):
        return _dataclass_decoder(expected)
    origin = typing.get_origin(expected)
    arguments = typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(arguments)
    if origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            item = _decoder(arguments[0])
            return lambda raw: tuple(item(x) for x in raw) if type(raw) is list else _fail(expected, raw)
        items = [_decoder(argument) for argument in arguments]

        def fixed(raw: object) -> tuple[object, ...]:
            if type(raw) is not list or len(raw) != len(items):
                _fail(expected, raw)
            return tuple(decode(x) for decode, x in zip(items, raw, strict=True))

        return fixed
    if origin is list:
        item = _decoder(arguments[0])
        return lambda raw: [item(x) for x in raw] if type(raw) is list else _fail(expected, raw)
    if origin is dict:
        key, value = _decoder(arguments[0]), _decoder(arguments[1])

        def mapping(raw: object) -> dict[object, object]:
            if type(raw) is not list or not all(type(pair) is list and len(pair) == 2 for pair in raw):
                _fail(expected, raw)
            return {key(k): value(v) for k, v in raw}

        return mapping
    raise TypeError(f"kvguard.lint.serial cannot decode {expected!r}")


def _decode_bytes(raw: object) -> bytes:
    if type(raw) is dict and set(raw) == {"bytes"} and isinstance(raw["bytes"], str):
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
    fields = dataclasses.fields(kind)
    if any(not f.init for f in fields):
        raise TypeError(f"{kind.__name__} has a field outside __init__: it cannot be decoded")
    module = sys.modules[kind.__module__]
    hints = typing.get_type_hints(kind, vars(module))
    decoders = [_decoder(hints[f.name]) for f in fields]
    name = kind.__name__
    width = len(fields) + 1

    def decode(raw: object) -> object:
        if type(raw) is not list or len(raw) != width or raw[0] != name:
            _fail(kind, raw)
        return kind(*(decoder(x) for decoder, x in zip(decoders, raw[1:], strict=True)))

    return decode


def _union_decoder(members: tuple[object, ...]) -> Decoder:
    """Dataclass members are told apart by their encoded name; the others by the JSON type
    they decode from (bool before int, as JSON's true is not a number here)."""
    by_name = {
        m.__name__: _decoder(m) for m in members if isinstance(m, type) and dataclasses.is_dataclass(m)
    }
    plain = [_decoder(m) for m in members if not (isinstance(m, type) and dataclasses.is_dataclass(m))]

    def decode(raw: object) -> object:
        if type(raw) is list and raw and type(raw[0]) is str and raw[0] in by_name:
            with contextlib.suppress(DecodeError):
                return by_name[raw[0]](raw)
        for candidate in plain:
            try:
                return candidate(raw)
            except DecodeError:
                continue
        _fail(members, raw)

    return decode
