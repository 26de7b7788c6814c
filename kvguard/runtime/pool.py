"""Reuse of objects handed to a caller once the caller lets go of them (completion events)."""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def _references_to_first(items: deque[T]) -> int:
    return sys.getrefcount(items[0])


def _pool_only_references() -> int:
    """What `_references_to_first` reads for an object only the pool's deque holds."""
    items: deque[object] = deque()
    items.append(object())
    return _references_to_first(items)


_POOL_ONLY = _pool_only_references()  # measured, not assumed: 2 on CPython 3.10 to 3.13


class ReusePool(Generic[T]):
    """Hands out objects, reusing the oldest one once nothing but the pool references it.

    For completion events: the backend gives each to its caller, who keeps it as long as it
    likes (vLLM's worker drops an event once it has completed). CPython's reference count says
    when only the pool still holds one; recording it again then changes nothing anyone can
    observe. An event still held anywhere (a caller's list, a report waiting to be verified) is
    never handed out again. At most `keep` objects are tracked: past that, the oldest is left
    to whoever holds it and a new one is made. Single-threaded: one thread takes.
    """

    def __init__(self, factory: Callable[[], T], keep: int = 1024) -> None:
        if keep < 1:
            raise ValueError(f"keep must be at least 1, got {keep}")
        self._factory = factory
        self._keep = keep
        self._items: deque[T] = deque()
        self.created = 0  # objects made by the factory (the rest of take() calls reused one)

    def __len__(self) -> int:
        return len(self._items)

    def take(self) -> T:
        items = self._items
        if items and _references_to_first(items) <= _POOL_ONLY:
            items.rotate(-1)  # the oldest becomes the newest
            return items[-1]
        item = self._factory()
        self.created += 1
        items.append(item)
        if len(items) > self._keep:
            items.popleft()
        return item
