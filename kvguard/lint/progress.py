"""A progress line on a terminal: what a long run is doing, rewritten in place.

Nothing is shown until the run has taken a second, so quick runs (a warm cache, one small
file) print nothing. The analysis is one long call with no steps to report, so while it runs
a timer thread rewrites the line with the time spent; no process is forked while that thread
lives (parse workers are started before, in the parsing phase).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Protocol, TextIO

# Quiet runs are the common case; a line appears only for runs longer than this.
SHOW_AFTER_SECONDS = 1.0
_TICK_SECONDS = 0.5


class Progress(Protocol):
    def files(self, done: int, total: int) -> None:
        """``done`` of ``total`` files parsed."""

    def phase(self, what: str) -> contextlib.AbstractContextManager[None]:
        """A step without intermediate counts (``analysing 1,914 files``) runs in the block."""


class ProgressLine:
    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._clock = clock
        self._started = self._clock()
        self._lock = threading.Lock()
        self._shown = ""

    def files(self, done: int, total: int) -> None:
        if done == total or done % max(1, total // 100) == 0:  # a hundred updates at most
            self._show(f"parsing {done:,}/{total:,} files")

    @contextlib.contextmanager
    def phase(self, what: str) -> Iterator[None]:
        began = self._clock()
        finished = threading.Event()

        def tick() -> None:
            while not finished.wait(_TICK_SECONDS):
                self._show(f"{what} ({self._clock() - began:.0f} s)")

        ticker = threading.Thread(target=tick, name="kvguard-progress", daemon=True)
        self._show(what)
        ticker.start()
        try:
            yield
        finally:
            finished.set()
            ticker.join()

    def clear(self) -> None:
        """Erase the line, if one is shown, so that the report starts on a clean line."""
        with self._lock:
            if self._shown:
                self._stream.write("\r\033[K")
                self._stream.flush()
                self._shown = ""

    def _show(self, text: str) -> None:
        if self._clock() - self._started < SHOW_AFTER_SECONDS:
            return
        with self._lock:
            if text != self._shown:
                self._stream.write(f"\r\033[Kkvguard: {text}")
                self._stream.flush()
                self._shown = text
