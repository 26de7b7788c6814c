"""What the stream-ordering rules share: unordered side-stream copies grouped by site, and the
mechanical fix, a barrier before the stream block."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from kvguard.lint.findings import Edit, Fix
from kvguard.lint.results import MAIN_THREAD, CopyRun, where_the_barrier_belongs
from kvguard.lint.values import StreamV

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
    picks, one list per copy site; paths that show the copy's direction (by its own sides
    before by its stream's other copies) and whose stream the analysis resolved come first
    (they tell the clearest story)."""
    by_site: dict[tuple[str, int, int], list[CopyRun]] = {}
    clearest = sorted(
        runs, key=lambda run: (not run.direction_shown, run.direction_by_stream, not run.resolved_stream)
    )
    for run in clearest:
        if (
            not run.order_only
            and not ordered(run)
            and run.on_side_stream
            and run.stream is not None
            and wanted(run)
        ):
            by_site.setdefault((run.path, run.span.line, run.span.column), []).append(run)
    return list(by_site.values())


def barrier_fix(runs: list[CopyRun], producers: tuple[str, ...]) -> tuple[Fix | None, str]:
    """The barrier before the stream block, if every unordered path to the copy takes it there."""
    sites = {run.barrier_site for run in runs}
    if None in sites:
        elsewhere = [run for run in runs if run.thread != MAIN_THREAD]
        if elsewhere:
            return None, _on_another_thread(elsewhere)
        reasons = dict.fromkeys(run.no_barrier_site for run in runs if run.barrier_site is None)
        return None, "; ".join(reasons)
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


def _on_another_thread(runs: list[CopyRun]) -> str:
    """Why a copy issued on another thread has no mechanical fix, and where its barrier goes."""
    thread = runs[0].thread
    reason = f"it runs on {thread if thread.startswith('the ') else f'the {thread}'}"
    for run in runs:
        belongs = where_the_barrier_belongs(run.flow)
        if belongs is not None:
            function, step = belongs
            return (
                f"{reason}; the barrier belongs on the requesting thread, in {function} before "
                f"{step.path}:{step.line} ({step.message})"
            )
    return f"{reason}; the barrier belongs on the requesting thread"


def spelt(stream: StreamV) -> str | None:
    """How the code spells the stream (``self.store_stream``, ``streams[0]``), or None where
    the analysis knows it by a description only (made in place, or not resolved)."""
    try:
        ast.parse(stream.label, mode="eval")
    except SyntaxError:
        return None
    return stream.label


def stream_phrase(stream: StreamV) -> str:
    """The side stream as a message names it: by its spelling in the code, else by where it
    was made, else as one the analysis could not name."""
    name = spelt(stream)
    if name is not None:
        return f"side stream `{name}`"
    made_at = stream.key.partition("@")[0].rsplit(":", 1)[0]  # "path:line:column" -> "path:line"
    if not stream.key.startswith("opaque:") and ":" in made_at:
        return f"a side stream made at {made_at}"
    return "a side stream the analysis could not name"


def wait_advice(stream: StreamV, behind: str) -> str:
    """How to make the copy's stream wait for the stream ``behind`` names, as prose when the
    copy's stream has no spelling (no placeholder inside a code span)."""
    producer = "torch.cuda.current_stream()"
    name = spelt(stream)
    if name is not None:
        return (
            f"call `{name}.wait_stream({producer})` or record an event on {behind} and wait on it on `{name}`"
        )
    return (
        f"make the stream the copy runs on wait for {behind} (its `wait_stream({producer})`, or "
        "`wait_event` on an event recorded there)"
    )
