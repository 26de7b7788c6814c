"""KVG002: ANY / DURING_API_CALL source access order on a copy that reads GPU memory."""

from __future__ import annotations

import re
from collections.abc import Iterator

from kvguard.lint.facts import ORDER_ANY, ORDER_DURING_API_CALL, ORDER_NAMES, SourceOrder
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
_INVERTED_AT = shapes.position(_INVERTED, "pkg/handlers.py", "True)\n    to_device")


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
            "`cuda.core` string or a default parameter value. A host-blocking sync of the producer "
            "before the copy (`torch.cuda.synchronize()`, `event.synchronize()`) makes it safe."
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
            "does this where the STREAM spelling is mechanical: a literal becomes 1, an enum member "
            "its STREAM member, a constant its STREAM sibling defined or imported in the same "
            "module, `is_src_access_order_any=True` becomes False, and a default that supplied ANY "
            "gets the keyword at the call that relied on it."
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
            expect=(Expect(5, 28),),
            note="driver enum member",
        ),
        Example(
            "import ctypes\n\n"
            "CU_MEMCPY_SRC_ACCESS_ORDER_ANY = 3\n\n"
            "def store(lib, dsts, srcs, sizes, n, attrs_type, handle):\n"
            "    attrs = attrs_type()\n"
            "    attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_ANY\n"
            "    lib.cuMemcpyBatchAsync(dsts, srcs, sizes, n, ctypes.byref(attrs), None, 1, None, handle)\n",
            expect=(Expect(7, 28),),
            note="module constant holding the literal 3, ctypes call",
        ),
        Example(
            _PRELUDE + "def store(dsts, srcs, sizes, n, stream, src_access_order: int = 3):\n"
            "    attrs = driver.CUmemcpyAttributes()\n"
            "    attrs.srcAccessOrder = src_access_order\n"
            "    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)\n",
            expect=(Expect(3, 65),),
            note="default parameter value",
        ),
        Example(
            "from cuda.bindings import runtime\n\n"
            "def store(dsts, srcs, sizes, n, stream):\n"
            "    attrs = runtime.cudaMemcpyAttributes(\n"
            "        srcAccessOrder=runtime.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderDuringApiCall\n"
            "    )\n"
            "    runtime.cudaMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream)\n",
            expect=(Expect(5, 24),),
            note="runtime enum member, DURING_API_CALL, constructor keyword",
        ),
        Example(
            "def store(ops, src_ptrs, dst_ptrs, sizes):\n"
            "    ops.swap_blocks_batch(src_ptrs, dst_ptrs, sizes, is_src_access_order_any=True)\n",
            expect=(Expect(2, 78),),
            note="is_src_access_order_any=True on a source that may be GPU memory",
        ),
        Example(
            files=shapes.BUGGY,
            expect=(Expect(*shapes.DEFAULT_ANY_AT[1:], shapes.DEFAULT_ANY_AT[0]),),
            note="ANY from a default parameter value reaches the store in another thread",
        ),
        Example(
            files=shapes.shape(load_order=", order=ORDER_ANY", caller_barrier=shapes.CALLER_WAITS),
            expect=(Expect(*shapes.DEFAULT_ANY_AT[1:], shapes.DEFAULT_ANY_AT[0]),),
            note="barrier present, but the store keeps the ANY default",
        ),
        Example(
            files=_INVERTED,
            expect=(Expect(*_INVERTED_AT[1:], _INVERTED_AT[0]),),
            note="sibling handler with the direction test inverted: ANY on the GPU source",
        ),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        by_site: dict[tuple[str, int, int], list[tuple[CopyRun, SourceOrder]]] = {}
        for run in model.copy_runs:
            order = run.order
            if order is None or order.value not in (ORDER_DURING_API_CALL, ORDER_ANY):
                continue
            if run.may_read_device and not run.host_synced:
                site = (order.path, order.span.line, order.span.column)
                by_site.setdefault(site, []).append((run, order))
        for reaching in by_site.values():
            run, order = reaching[0]
            order_name = ORDER_NAMES[order.value]
            fix, why_not = _fix([order for _, order in reaching], model)
            yield Finding(
                path=order.path,
                code=self.code,
                message=f"{run.form} may read its GPU source out of stream order: source access "
                f"order {order_name} ({order.value}) from `{order.spelling}`, {order.origin}",
                span=order.span,
                statement_lines=(order.span.line, order.span.end_line),
                flow=(
                    FlowStep(order.path, order.span.line, order.span.column, f"{order_name} set here"),
                    *run.flow,
                    FlowStep(run.path, run.span.line, run.span.column, f"{run.form} reads with it"),
                ),
                fix_hint="request STREAM (1) source order for copies whose source is GPU memory"
                + (f" (no automatic fix: {why_not})" if fix is None else ""),
                fix=fix,
            )


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_STREAM_MEMBER = (
    ("_DURING_API_CALL", "_STREAM"),
    ("DuringApiCall", "Stream"),
    ("_ANY", "_STREAM"),
    ("Any", "Stream"),
)


def _stream_spelling(spelling: str, bound: set[str]) -> tuple[str | None, str]:
    """STREAM in the style of ``spelling`` (an ANY or DURING_API_CALL spelling), usable where
    ``bound`` are the module's names; or None and why not."""
    if spelling.isdigit():
        return "1", ""
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


def _fix(orders: list[SourceOrder], model: ProjectModel) -> tuple[Fix | None, str]:
    """The fix for one order site, reached by ``orders`` (one per path)."""
    order = orders[0]
    if order.spelling == "True":
        edit = Edit(order.path, "replace", order.span, "False")
        return Fix("is_src_access_order_any=False", (edit,)), ""
    if "default of parameter" in order.origin:
        calls = sorted({o.defaulted_at for o in orders if o.defaulted_at is not None})
        if not calls or any(o.defaulted_at is None for o in orders):
            return None, "a call that relies on the default was not seen"
        edits = []
        for call_path, call_span, parameter in calls:
            stream, why_not = _stream_spelling(order.spelling, model.names_bound_in(call_path))
            if stream is None:
                return None, why_not
            edits.append(Edit(call_path, "keyword", call_span, f"{parameter}={stream}"))
        where = "the call" if len(edits) == 1 else f"the {len(edits)} calls"
        return Fix(f"pass {edits[0].text} at {where} where the ANY default applied", tuple(edits)), ""
    stream, why_not = _stream_spelling(order.spelling, model.names_bound_in(order.path))
    if stream is None:
        return None, why_not
    return Fix(f"request {stream}", (Edit(order.path, "replace", order.span, stream),)), ""
