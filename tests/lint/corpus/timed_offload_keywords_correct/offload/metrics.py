"""Timing and bookkeeping helpers around the offload path."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

_timings: dict[str, list[float]] = {}


def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Record how long each call of ``fn`` takes on the host."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            _timings.setdefault(fn.__qualname__, []).append(time.perf_counter() - start)

    return wrapper


class TransferLog:
    """Remembers which blocks went where, for the scheduler's statistics."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, int]] = []

    def note(self, block_ids: list[int], cache: Any) -> None:
        self.entries.append((len(block_ids), id(cache)))
