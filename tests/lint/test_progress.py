"""The progress line: silent for a quick run, then what the run is doing, then erased."""

from __future__ import annotations

import io
import threading

from kvguard.lint.progress import SHOW_AFTER_SECONDS, ProgressLine


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_shown_before_a_second_has_passed() -> None:
    clock, stream = _Clock(), io.StringIO()
    line = ProgressLine(stream, clock)
    line.files(10, 10)
    with line.phase("analysing 3 files"):
        pass
    line.clear()
    assert stream.getvalue() == ""


def test_a_long_run_shows_what_it_does_and_erases_the_line() -> None:
    clock, stream = _Clock(), io.StringIO()
    line = ProgressLine(stream, clock)
    clock.now += SHOW_AFTER_SECONDS
    line.files(1, 3231)
    line.files(32, 3231)
    line.files(3231, 3231)
    assert (
        stream.getvalue()
        == "\r\033[Kkvguard: parsing 32/3,231 files\r\033[Kkvguard: parsing 3,231/3,231 files"
    )
    line.clear()
    assert stream.getvalue().endswith("files\r\033[K")


class _Watched(io.StringIO):
    """A stream that says when a given text has been written to it."""

    def __init__(self, awaited: str) -> None:
        super().__init__()
        self.awaited = awaited
        self.seen = threading.Event()

    def write(self, text: str) -> int:
        if self.awaited in text:
            self.seen.set()
        return super().write(text)


def test_a_step_without_counts_shows_the_time_it_has_taken() -> None:
    clock, stream = _Clock(), _Watched("kvguard: analysing 1,914 files (7 s)")
    line = ProgressLine(stream, clock)
    clock.now += SHOW_AFTER_SECONDS
    with line.phase("analysing 1,914 files"):
        assert stream.getvalue().startswith("\r\033[Kkvguard: analysing 1,914 files")
        clock.now += 7
        assert stream.seen.wait(timeout=60)  # the timer thread rewrote the line
