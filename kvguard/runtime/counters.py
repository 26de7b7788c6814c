"""Counters for the guard and verification, exported as a flat dict of ints."""

from __future__ import annotations

import threading
from collections.abc import Iterable


class RuntimeCounters:
    """Thread-safe named counters; every name exists from the start so exporters see zeros."""

    def __init__(self, names: Iterable[str]) -> None:
        self._lock = threading.Lock()
        self._values = dict.fromkeys(names, 0)

    def add(self, name: str, amount: int = 1) -> None:
        with self._lock:
            if name not in self._values:
                raise KeyError(f"unknown counter {name!r}; known: {sorted(self._values)}")
            self._values[name] += amount

    def as_dict(self) -> dict[str, int]:
        with self._lock:
            return dict(self._values)
