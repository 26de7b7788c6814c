"""KVG002: ANY / DURING_API_CALL source access order on a copy that reads GPU memory."""

from __future__ import annotations

import re
from collections.abc import Iterator

from kvguard.lint.facts import (
    ORDER_ANY,
    ORDER_DURING_API_CALL,
    ORDER_NAMES,
    ORDER_STREAM,
    Memory,
    SourceOrder,
)
from kvguard.lint.findings import Edit, Finding, Fix, FlowStep
from kvguard.lint.model import ProjectModel
from kvguard.lint.results import CopyRun
from kvguard.lint.rule import Example, Expect, Rule, RulePage
from lint_rules import offload_shapes as shapes

_BAD = """\
attrs.srcAccessOrder = CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, store_stream.cuda_stream)
"""
_GOOD = """\
attrs.srcAccessOrder = CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, store_stream.cuda_stream)
"""
_PRELUDE = "from cuda.bindings import driver\n\n"
_INVERTED = shapes.sibling(order_expression="self.gpu_to_cpu")
_INVERTED_AT = shapes.position(_INVERTED, "pkg/handlers.py", "ops.swap_blocks_batch(")


# What each source access order lets the driver do (CUmemcpySrcAccessOrder), for messages.
ORDER_MEANINGS = {
    ORDER_STREAM: "the source is read in stream order, after the work queued ahead of the copy",
    ORDER_DURING_API_CALL: "the driver may read the source while the call runs, even before the "
    "work queued ahead of the copy on its stream has finished",
    ORDER_ANY: "the driver may read the source at any time, even before the work queued ahead of "
    "the copy on its stream has finished and after the call returns",
}


def describe_order(value: int) -> str:
    """``ANY (3: the driver may ...)``."""
    return f"{ORDER_NAMES[value]} ({value}: {ORDER_MEANINGS[value]})"


class OutOfOrderSourceRead(Rule):
    code = "KVG002"
    name = "out-of-order-source-read"
    summary = "Batch copy lets the driver read a GPU source out of stream order (ANY/DURING_API_CALL)"
    page = RulePage(
        flags=(
            "A source access order of ANY (3) or DURING_API_CALL (2) reaching a copy whose source "
            "may be GPU memory: `cuMemcpyBatchAsync` / `cudaMemcpyBatchAsync` attributes, "
            "`cuMemcpyWithAttributesAsync`, `is_src_access_order_any=True`, a `src_access_order` "
            "argument; spelt as a literal, a module constant, a driver or runtime enum member, a "
            "`cuda.core` string or a default parameter value. Reported at the copy, once however "
            "many paths reach it, the place the order is set being its path's first step. A "
            "host-blocking sync of the producer before the copy (`torch.cuda.synchronize()`, "
            "`event.synchronize()`) makes it safe."
        ),
        why=(
            "With ANY or DURING_API_CALL the driver may read the source before earlier work on the "
            "stream has run, so a barrier on the stream (KVG001's fix) does not gate the read. A "
            "store then captures a block the compute stream is still writing. ANY is sound only "
            "for a source no stream writes, such as pinned host memory on a load."
        ),
        bad=_BAD,
        good=_GOOD,
        fix=(
            "Request STREAM (1) for every copy whose source is GPU memory; keep ANY for loads "
            "from pinned host memory if you want. Where a default parameter supplies ANY, pass "
            "STREAM explicitly at the store call site or change the default. `kvguard check --fix` "
            "does this where the STREAM spelling is mechanical: a literal becomes the module's "
            "STREAM constant where it defines or imports one (else 1), an enum member its STREAM "
            "member, a constant its STREAM sibling defined or imported in the same module, "
            "`is_src_access_order_any=True` becomes False, and a default that supplied ANY gets the "
            "keyword at the call that relied on it; comments on the statement and just above it "
            "that name the old order are updated to match. A value that also reaches loads from "
            "host memory (a helper shared by stores and loads) is left alone: changing it would "
            "switch the loads too, so the finding says so and the stores need a value of their own."
        ),
        references=("https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MEM.html",),
    )
    VALID = (
        Example(
            _PRELUDE + "def store(dsts, srcs, sizes, n, stream):\n"
            "    attrs = driver.CUmemcpyAttributes()\n"
            "    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM\n"
            "    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)\n",
            note="STREAM order",
        ),
        Example(
            "import torch\n" + _PRELUDE + "def store(dsts, srcs, sizes, n, stream):\n"
            "    torch.cuda.synchronize()\n"
            "    attrs = driver.CUmemcpyAttributes()\n"
            "    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY\n"
            "    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)\n",
            note="host-blocking sync of the producer before an ANY copy",
        ),
        Example(
            "import torch\n\n"
            "def load(ops, gpu_ptrs, sizes, n):\n"
            "    pinned = torch.empty(n, dtype=torch.int64, pin_memory=True)\n"
            "    ops.swap_blocks_batch(pinned, gpu_ptrs, sizes, is_src_access_order_any=True)\n",
            note="ANY on a load from pinned host memory",
        ),
        Example(files=shapes.FIXED_EVENT, note="STREAM for stores, ANY for loads from pinned host memory"),
        Example(files=shapes.FIXED_CALLER, note="STREAM for stores passed explicitly over an ANY default"),
        Example(files=shapes.sibling(), note="order computed from the direction: ANY only host to GPU"),
    )
    INVALID = (
        Example(
            _PRELUDE + "def store(dsts, srcs, sizes, n, stream):\n"
            "    attrs = driver.CUmemcpyAttributes()\n"
            "    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY\n"
            "    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)\n",
            expect=(Expect(6, 5),),
            note="driver enum member",
        ),
        Example(
            "import ctypes\n\n"
            "CU_MEMCPY_SRC_ACCESS_ORDER_ANY = 3\n\n"
            "def store(lib, dsts, srcs, sizes, n, attrs_type, handle):\n"
            "    attrs = attrs_type()\n"
            "    attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_ANY\n"
            "    lib.cuMemcpyBatchAsync(dsts, srcs, sizes, n, ctypes.byref(attrs), None, 1, None, handle)\n",
            expect=(Expect(8, 5),),
            note="module constant holding the literal 3, ctypes call",
        ),
        Example(
            _PRELUDE + "def store(dsts, srcs, sizes, n, stream, src_access_order: int = 3):\n"
            "    attrs = driver.CUmemcpyAttributes()\n"
            "    attrs.srcAccessOrder = src_access_order\n"
            "    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)\n",
            expect=(Expect(6, 5),),
            note="default parameter value",
        ),
        Example(
            "from cuda.bindings import runtime\n\n"
            "def store(dsts, srcs, sizes, n, stream):\n"
            "    attrs = runtime.cudaMemcpyAttributes(\n"
            "        srcAccessOrder=runtime.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderDuringApiCall\n"
            "    )\n"
            "    runtime.cudaMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream)\n",
            expect=(Expect(7, 5),),
            note="runtime enum member, DURING_API_CALL, constructor keyword",
        ),
        Example(
            "def store(ops, src_ptrs, dst_ptrs, sizes):\n"
            "    ops.swap_blocks_batch(src_ptrs, dst_ptrs, sizes, is_src_access_order_any=True)\n",
            expect=(Expect(2, 5),),
            note="is_src_access_order_any=True on a source that may be GPU memory",
        ),
        Example(
            files=shapes.BUGGY,
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="ANY from a default parameter value reaches the store in another thread",
        ),
        Example(
            files=shapes.shape(load_order=", order=ORDER_ANY", caller_barrier=shapes.CALLER_WAITS),
            expect=(Expect(*shapes.COPY_AT[1:], shapes.COPY_AT[0]),),
            note="barrier present, but the store keeps the ANY default",
        ),
        Example(
            files=_INVERTED,
            expect=(Expect(*_INVERTED_AT[1:], _INVERTED_AT[0]),),
            note="sibling handler with the direction test inverted: ANY on the GPU source",
        ),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        # Per copy, the orders reaching it (one per path); per order spelling, every store it
        # reaches, and the loads from host memory it reaches (a fix there would switch them too).
        by_copy: dict[tuple[str, int, int], list[tuple[CopyRun, SourceOrder]]] = {}
        stores: dict[tuple[str, int, int], list[SourceOrder]] = {}
        loads: dict[tuple[str, int, int], list[CopyRun]] = {}
        # Location hints that vary with the copy (a device source on some attributes, a host
        # source on others) say which way each copy goes; one hint used for every copy (load
        # attributes reused for stores) says nothing of a given copy.
        hints_vary = any(run.source_hint is Memory.DEVICE for run in model.copy_runs)
        for run in model.copy_runs:
            order = run.order
            if order is None or order.value not in (ORDER_DURING_API_CALL, ORDER_ANY):
                continue
            site = (order.path, order.span.line, order.span.column)
            hinted_host = (
                hints_vary and run.source_hint is Memory.HOST and run.source_memory is Memory.UNKNOWN
            )
            if not run.may_read_device or hinted_host:
                loads.setdefault(site, []).append(run)
            elif not run.host_synced:
                by_copy.setdefault((run.path, run.span.line, run.span.column), []).append((run, order))
                stores.setdefault(site, []).append(order)
        # A spelling's fix is one, whichever copy it reaches.
        fixes_at = {site: _fix(orders, loads.get(site, []), model) for site, orders in stores.items()}
        for reaching in by_copy.values():
            run, order = reaching[0]
            order_name = ORDER_NAMES[order.value]
            sites = sorted({(o.path, o.span.line, o.span.column) for _, o in reaching})
            fixes = [fixes_at[site] for site in sites]
            why_not = next((why for fix, why in fixes if fix is None), "")
            fix = None if why_not else _joined([fix for fix, _ in fixes if fix is not None])
            yield Finding(
                path=run.path,
                code=self.code,
                message=f"{run.form} may read its GPU source out of stream order: source access "
                f"order {describe_order(order.value)}, {_set_by(order)} ({order.path}:{order.span.line})",
                span=run.span,
                statement_lines=run.lines,
                flow=(
                    FlowStep(order.path, order.span.line, order.span.column, f"{order_name} set here"),
                    *run.flow,
                    FlowStep(run.path, run.span.line, run.span.column, f"{run.form} reads with it"),
                ),
                fix_hint=f"request source access order {describe_order(ORDER_STREAM)} for copies whose "
                "source is GPU memory" + (f" (no automatic fix: {why_not})" if why_not else ""),
                fix=fix,
            )


def _joined(fixes: list[Fix]) -> Fix | None:
    """One fix making the edits of several (each order spelling that reaches a copy)."""
    if len(fixes) <= 1:
        return fixes[0] if fixes else None
    edits = tuple(dict.fromkeys(edit for fix in fixes for edit in fix.edits))
    return Fix(" and ".join(fix.description for fix in fixes), edits)


def _set_by(order: SourceOrder) -> str:
    """Where the order comes from, as written: "from `3` set in the copy attributes"."""
    if order.origin.startswith("passed as is_src_access_order_any"):
        return order.origin  # the flag spells the value itself
    separator = ", " if order.origin.startswith("the default") else " "
    return f"from `{order.spelling}`{separator}{order.origin}"


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_STREAM_MEMBER = (
    ("_DURING_API_CALL", "_STREAM"),
    ("DuringApiCall", "Stream"),
    ("_ANY", "_STREAM"),
    ("Any", "Stream"),
    ("DURING_API_CALL", "STREAM"),
    ("ANY", "STREAM"),
)


def _stream_spelling(spelling: str, path: str, model: ProjectModel) -> tuple[str | None, str]:
    """STREAM in the style of ``spelling`` (an ANY or DURING_API_CALL spelling) as the module
    at ``path`` can spell it (its named STREAM constant for a literal, where it has one); or
    None and why not."""
    bound = model.names_bound_in(path)
    if spelling.isdigit():
        return _named_stream(model.literal_constants(path), bound) or str(ORDER_STREAM), ""
    if len(spelling) >= 2 and spelling[0] == spelling[-1] and spelling[0] in "'\"":
        return f"{spelling[0]}stream{spelling[0]}", ""
    if not _IDENTIFIER.fullmatch(spelling):
        return None, f"the order comes from the expression `{spelling}`"
    head, _, last = spelling.rpartition(".")
    for old, new in _STREAM_MEMBER:
        if last.endswith(old):
            stream = f"{head}.{last[: -len(old)]}{new}" if head else f"{last[: -len(old)]}{new}"
            if head or stream in bound:
                return stream, ""
            return None, f"`{stream}` is not defined or imported next to `{spelling}`"
    return None, f"no STREAM counterpart of `{spelling}` to spell"


# The names a STREAM source order goes by: CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
# cudaMemcpySrcAccessOrderStream, a project's own ORDER_STREAM.
_STREAM_NAME = re.compile(r"(?i)(src_?access_?)?order_?stream")


def _named_stream(constants: dict[str, object], bound: set[str]) -> str | None:
    """The module's own name for STREAM: a constant it defines as 1, or one it imports under
    a name that says so; the first in name order, so that a fix is the same every run."""
    defined = sorted(
        name for name, value in constants.items() if value == ORDER_STREAM and _STREAM_NAME.search(name)
    )
    imported = sorted(
        name for name in bound - set(constants) if re.search(r"(?i)src_?access_?order_?stream$", name)
    )
    names = defined or imported
    return names[0] if names else None


def _reaches_loads(spelling: str, loads: list[CopyRun]) -> str:
    first = min(loads, key=lambda run: (run.path, run.span))
    return (
        f"the same `{spelling}` also sets the order of loads from host memory (the {first.form} at "
        f"{first.path}:{first.span.line}), which may keep it; changing it would switch them to STREAM "
        "too, so give the stores a STREAM value of their own"
    )


def _comment_rewrites(order: SourceOrder) -> tuple[tuple[str, str], ...]:
    """Rewrites that keep a comment describing the old order true of the new one: the order's
    name in its upper-case and camel-case spellings, and a literal value."""
    name = ORDER_NAMES[order.value]
    camel = "".join(part.capitalize() for part in name.split("_"))
    rewrites = [
        (rf"(?<![A-Za-z0-9]){name}(?![A-Za-z0-9])", "STREAM"),
        (rf"(?<=[a-z]){camel}(?![a-z0-9])", "Stream"),
    ]
    if order.spelling.isdigit():
        # ``srcAccessOrder=3`` or ``3 == ANY``, not a version such as 7.2.3.
        rewrites.append((rf"(?<![\w.]){order.spelling}(?![\w]|\.\w)", str(ORDER_STREAM)))
    return tuple(rewrites)


def _fix(orders: list[SourceOrder], loads: list[CopyRun], model: ProjectModel) -> tuple[Fix | None, str]:
    """The fix for one order site, reached by ``orders`` (one per store path); ``loads``: the
    loads from host memory the same site reaches."""
    order = orders[0]
    if "default of parameter" in order.origin:
        calls = sorted({o.defaulted_at for o in orders if o.defaulted_at is not None})
        if not calls or any(o.defaulted_at is None for o in orders):
            return None, "a call that relies on the default was not seen"
        load_calls = [run for run in loads if run.order is not None and run.order.defaulted_at in calls]
        if load_calls:
            return None, _reaches_loads(order.spelling, load_calls)
        edits = []
        for call_path, call_span, parameter in calls:
            stream, why_not = _stream_spelling(order.spelling, call_path, model)
            if stream is None:
                return None, why_not
            edits.append(Edit(call_path, "keyword", call_span, f"{parameter}={stream}"))
        where = "the call" if len(edits) == 1 else f"the {len(edits)} calls"
        return Fix(f"pass {edits[0].text} at {where} where the ANY default applied", tuple(edits)), ""
    if loads:
        return None, _reaches_loads(order.spelling, loads)
    if order.spelling == "True":
        edit = Edit(order.path, "replace", order.span, "False")
        return Fix("is_src_access_order_any=False: STREAM source order", (edit,)), ""
    stream, why_not = _stream_spelling(order.spelling, order.path, model)
    if stream is None:
        return None, why_not
    changes = (
        Edit(order.path, "replace", order.span, stream),
        Edit(order.path, "comments", order.span, "", _comment_rewrites(order)),
    )
    description = f"`{order.spelling}` becomes `{stream}` (STREAM: the source is read in stream order)"
    return Fix(description, changes), ""
