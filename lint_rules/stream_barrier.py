"""What the stream-ordering rules share: unordered side-stream copies grouped by site, and the
mechanical fix, a barrier before the stream block."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kvguard.lint.findings import Edit, Fix
from kvguard.lint.results import MAIN_THREAD, CopyRun

# Why a copy on another thread's implicit current stream is uncertain.
ON_SHARED_DEFAULT_STREAM = (
    "it runs on another thread's current stream, which is the producer's own (the default "
    "stream every thread shares) unless one of them set another"
)


def unordered_by_site(
    runs: Iterable[CopyRun],
    wanted: Callable[[CopyRun], bool],
    ordered: Callable[[CopyRun], bool] = lambda run: run.ordered,
) -> list[list[CopyRun]]:
    """Copies on a side stream that no barrier orders (as ``ordered`` reads it) and ``wanted``
    picks, one list per copy site; paths that show the copy's direction and whose stream the
    analysis resolved come first (they tell the clearest story)."""
    by_site: dict[tuple[str, int, int], list[CopyRun]] = {}
    for run in sorted(runs, key=lambda run: (not run.direction_shown, not run.resolved_stream)):
        if not ordered(run) and run.on_side_stream and run.stream is not None and wanted(run):
            by_site.setdefault((run.path, run.span.line, run.span.column), []).append(run)
    return list(by_site.values())


def barrier_fix(runs: list[CopyRun], producers: tuple[str, ...]) -> tuple[Fix | None, str]:
    """The barrier before the stream block, if every unordered path to the copy takes it there."""
    sites = {run.barrier_site for run in runs}
    if None in sites:
        if any(run.thread != MAIN_THREAD for run in runs):
            return None, "it runs on another thread; the barrier belongs on the requesting thread"
        return None, (
            "no statement before the stream block is sure to run on the requesting thread with the "
            "compute stream current (the block is in another function or inside another stream "
            "block, its function is passed as a callback, or the stream is not a plain name)"
        )
    if len(sites) > 1:
        return None, "paths reach it through different stream blocks"
    site = sites.pop()
    assert site is not None
    path, with_span, stream, (device_api, needs_import) = site
    # The current stream of the device module the block itself uses (``torch.xpu``,
    # ``get_accelerator()``): right on that device.
    producer = producers[0] if len(producers) == 1 else f"{device_api}.current_stream()"
    barrier = Edit(path, "insert-before", with_span, f"{stream}.wait_stream({producer})\n")
    edits: tuple[Edit, ...] = (barrier,)
    if needs_import and len(producers) != 1:
        edits = (barrier, Edit(path, "import", with_span, needs_import))
    return Fix(f"{stream}.wait_stream({producer}) before the stream block", edits), ""
