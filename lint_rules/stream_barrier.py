"""The mechanical fix shared by the stream-ordering rules: a barrier before the stream block."""

from __future__ import annotations

from kvguard.lint.findings import Edit, Fix
from kvguard.lint.interpreter import MAIN_THREAD, CopyRun


def barrier_fix(runs: list[CopyRun], producers: tuple[str, ...]) -> tuple[Fix | None, str]:
    """The barrier before the stream block, if every unordered path to the copy takes it there."""
    sites = {run.barrier_site for run in runs}
    if None in sites:
        if any(run.thread != MAIN_THREAD for run in runs):
            return None, "it runs on another thread; the barrier belongs on the requesting thread"
        return None, "the stream is not entered by a `with` block in the copy's own function"
    if len(sites) > 1:
        return None, "paths reach it through different stream blocks"
    site = sites.pop()
    assert site is not None
    path, with_span, stream, torch = site
    producer = producers[0] if len(producers) == 1 else f"{torch or 'torch'}.cuda.current_stream()"
    barrier = Edit(path, "insert-before", with_span, f"{stream}.wait_stream({producer})\n")
    edits = (
        (barrier,) if torch or len(producers) == 1 else (barrier, Edit(path, "import", with_span, "torch"))
    )
    return Fix(f"{stream}.wait_stream({producer}) before the stream block", edits), ""
