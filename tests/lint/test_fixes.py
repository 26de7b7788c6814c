"""`--fix` and `--diff`: every fix round-trips (the fixed code parses and passes the rule,
a second fix changes nothing) and touches nothing but what it fixes."""

from __future__ import annotations

import ast
import difflib
import subprocess
import sys
from pathlib import Path

import libcst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.lint.findings import Edit, Span
from kvguard.lint.fixes import FixError, apply_edits, fixes_by_path
from lint_rules import offload_shapes as shapes
from tests.lint.conftest import Lint, write_tree

DRIVER_ANY = """\
from cuda.bindings import driver


def store(dsts, srcs, sizes, n, stream):
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY  # keep me
    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)
"""
RUNTIME_DURING_CALL = """\
from cuda.bindings import runtime


def store(dsts, srcs, sizes, n, stream):
    attrs = runtime.cudaMemcpyAttributes(
        srcAccessOrder=runtime.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderDuringApiCall,
    )
    runtime.cudaMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream)
"""
SWAP_ANY = """\
def store(ops, src_ptrs, dst_ptrs, sizes):
    ops.swap_blocks_batch(src_ptrs, dst_ptrs, sizes, is_src_access_order_any=True)
"""
CONSTANT_ANY = """\
import ctypes

CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 1
CU_MEMCPY_SRC_ACCESS_ORDER_ANY = 3


def store(lib, dsts, srcs, sizes, n, attrs_type, handle):
    attrs = attrs_type()
    attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    lib.cuMemcpyBatchAsync(dsts, srcs, sizes, n, ctypes.byref(attrs), None, 1, None, handle)
"""
LITERAL_DEFAULT = """\
from cuda.bindings import driver


def store(dsts, srcs, sizes, n, stream, src_access_order: int = 3):
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)


def offload(dsts, srcs, sizes, n, stream):
    store(dsts, srcs, sizes, n, stream)
"""
STREAM_BLOCK = """\
import torch


class Offloader:
    def store(self, gpu):
        cpu = torch.empty(gpu.shape, pin_memory=True)
        gpu.mul_(2)
        # the store
        with torch.cuda.stream(self.store_stream):
            cpu.copy_(gpu, non_blocking=True)  # async
"""
NO_TORCH_NAME = """\
from torch import empty
from torch.cuda import stream as on_stream


def store(gpu, side):
    cpu = empty(gpu.shape, pin_memory=True)
    with on_stream(side):
        cpu.copy_(gpu, non_blocking=True)
"""

XPU_STORE = """\
import torch


def store(gpu, side):
    cpu = torch.empty(gpu.shape, pin_memory=True)
    with torch.xpu.stream(side):
        cpu.copy_(gpu, non_blocking=True)
"""

ACCELERATOR_STORE = """\
import torch
from deepspeed.accelerator import get_accelerator


def store(gpu, side):
    cpu = torch.empty(gpu.shape, pin_memory=True)
    with get_accelerator().stream(side):
        cpu.copy_(gpu, non_blocking=True)
"""

LOAD_BLOCK = """\
import torch


def load(gpu, n, stream):
    pinned = torch.empty(n, pin_memory=True)
    with torch.cuda.stream(stream):
        gpu.copy_(pinned, non_blocking=True)
"""

CASES = {
    "KVG002 driver enum member": (
        "KVG002",
        {"store.py": DRIVER_ANY},
        "store.py",
        "CU_MEMCPY_SRC_ACCESS_ORDER_STREAM  # keep me",
    ),
    "KVG002 runtime enum in a constructor keyword": (
        "KVG002",
        {"store.py": RUNTIME_DURING_CALL},
        "store.py",
        "srcAccessOrder=runtime.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream,\n",
    ),
    "KVG002 is_src_access_order_any=True": (
        "KVG002",
        {"store.py": SWAP_ANY},
        "store.py",
        "is_src_access_order_any=False)",
    ),
    "KVG002 module constant with a STREAM sibling": (
        "KVG002",
        {"store.py": CONSTANT_ANY},
        "store.py",
        "attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM\n",
    ),
    "KVG002 literal default: keyword at the call": (
        "KVG002",
        {"store.py": LITERAL_DEFAULT},
        "store.py",
        "store(dsts, srcs, sizes, n, stream, src_access_order=1)",
    ),
    "KVG002 literal default relied on by two calls: both get the keyword": (
        "KVG002",
        {
            "store.py": LITERAL_DEFAULT + "\n\ndef offload_again(dsts, srcs, sizes, n, stream):\n"
            "    store(dsts, srcs, sizes, n, stream)\n"
        },
        "store.py",
        "    store(dsts, srcs, sizes, n, stream, src_access_order=1)\n\n\n"
        "def offload_again(dsts, srcs, sizes, n, stream):\n"
        "    store(dsts, srcs, sizes, n, stream, src_access_order=1)\n",
    ),
    "KVG002 default from a constant, call in another module": (
        "KVG002",
        shapes.BUGGY,
        "pkg/backend.py",
        "make_plan(gpu_caches, cpu_caches, store_stream, order=ORDER_STREAM)",
    ),
    "KVG001 barrier before the stream block": (
        "KVG001",
        {"store.py": STREAM_BLOCK},
        "store.py",
        "        gpu.mul_(2)\n"
        "        # the store\n"
        "        self.store_stream.wait_stream(torch.cuda.current_stream())\n"
        "        with torch.cuda.stream(self.store_stream):\n",
    ),
    "KVG004 barrier before the load's stream block": (
        "KVG004",
        {"load.py": LOAD_BLOCK},
        "load.py",
        "    stream.wait_stream(torch.cuda.current_stream())\n    with torch.cuda.stream(stream):\n",
    ),
    "KVG001 on XPU waits on the XPU's current stream": (
        "KVG001",
        {"store.py": XPU_STORE},
        "store.py",
        "    side.wait_stream(torch.xpu.current_stream())\n    with torch.xpu.stream(side):\n",
    ),
    "KVG001 through get_accelerator() waits on its current stream": (
        "KVG001",
        {"store.py": ACCELERATOR_STORE},
        "store.py",
        "    side.wait_stream(get_accelerator().current_stream())\n"
        "    with get_accelerator().stream(side):\n",
    ),
    "KVG001 module without a torch name gets the import": (
        "KVG001",
        {"store.py": NO_TORCH_NAME},
        "store.py",
        "import torch\nfrom torch import empty\nfrom torch.cuda import stream as on_stream\n",
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_fix_round_trips(lint: Lint, tmp_path: Path, case: str) -> None:
    code, files, changed, expected = CASES[case]
    before = lint(files, select=(code,))
    assert [f.code for f in before.findings] == [code]
    assert before.findings[0].fix is not None

    edits = fixes_by_path(before.findings)
    for path, path_edits in edits.items():
        source = (tmp_path / path).read_text()
        (tmp_path / path).write_text(apply_edits(source, path_edits))
    fixed = (tmp_path / changed).read_text()
    assert expected in fixed
    ast.parse(fixed)
    # Only the fixed lines differ.
    diff = [
        line
        for line in difflib.unified_diff(files[changed].splitlines(), fixed.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert 1 <= len(diff) <= 2 * len(edits[changed]) + 1, diff  # each edit: a line out, a line in (an import)

    after = lint({}, select=(code,))
    assert after.findings == []
    # Idempotent: nothing left to fix, and fixing the fixed code again changes nothing.
    assert fixes_by_path(after.findings) == {}
    for path in edits:
        assert apply_edits((tmp_path / path).read_text(), []) == (tmp_path / path).read_text()


def test_copy_thread_store_has_no_fix_and_says_why(lint: Lint) -> None:
    result = lint(shapes.BUGGY, select=("KVG001",))
    [finding] = result.findings
    assert finding.fix is None
    assert finding.fix_hint.endswith(
        "(no automatic fix: it runs on the thread running Mover._serve; the barrier belongs on the "
        "requesting thread, in OffloadWorker.after_forward before pkg/worker.py:20 (calls Mover.submit))"
    )
    # The path starts where that barrier belongs.
    assert [(step.path, step.line, step.message) for step in finding.flow[:2]] == [
        ("pkg/worker.py", 18, "in OffloadWorker.after_forward, on the requesting thread"),
        ("pkg/worker.py", 20, "calls Mover.submit"),
    ]


def test_default_with_star_arguments_at_the_call_has_no_fix(lint: Lint) -> None:
    # ``*parts`` may carry the argument: adding the keyword could pass it twice.
    code = LITERAL_DEFAULT.replace(
        "    store(dsts, srcs, sizes, n, stream)\n", "    store(*parts)\n"
    ).replace("def offload(dsts, srcs, sizes, n, stream):", "def offload(parts):")
    [finding] = lint({"store.py": code}, select=("KVG002",)).findings
    assert finding.fix is None
    assert "a call that relies on the default was not seen" in finding.fix_hint


NO_BARRIER_FIX = {
    "function run by an executor": """\
from concurrent.futures import ThreadPoolExecutor

import torch


class Loader:
    def __init__(self):
        self.pool = ThreadPoolExecutor(1)
        self.stream = torch.cuda.Stream()

    def _load(self, gpu, n):
        pinned = torch.empty(n, pin_memory=True)
        with torch.cuda.stream(self.stream):
            gpu.copy_(pinned, non_blocking=True)

    def request(self, gpu, n):
        return self.pool.submit(self._load, gpu, n)
""",
    "stream from a property": """\
import itertools

import torch


class Loader:
    def __init__(self):
        self._streams = itertools.cycle([torch.cuda.Stream(), torch.cuda.Stream()])

    @property
    def next_stream(self):
        return next(self._streams)

    def load(self, gpu, n):
        pinned = torch.empty(n, pin_memory=True)
        with torch.cuda.stream(self.next_stream):
            gpu.copy_(pinned, non_blocking=True)
""",
    "inside another stream block": """\
import torch


def load(gpu, n, a, b):
    pinned = torch.empty(n, pin_memory=True)
    with torch.cuda.stream(a):
        with torch.cuda.stream(b):
            gpu.copy_(pinned, non_blocking=True)
""",
    "stream field that is None on some devices": """\
import torch


class Loader:
    def __init__(self, device):
        self.stream = torch.cuda.Stream() if device.type == "cuda" else None

    def load(self, gpu, n):
        pinned = torch.empty(n, pin_memory=True)
        with torch.cuda.stream(self.stream):
            gpu.copy_(pinned, non_blocking=True)
""",
    "device module chosen by an argument": """\
import torch


def load(gpu, n, stream, device):
    pinned = torch.empty(n, pin_memory=True)
    with torch.get_device_module(device).stream(stream):
        gpu.copy_(pinned, non_blocking=True)
""",
    "stream bound by an earlier item of the with": """\
import torch


def load(gpu, n, ctx):
    pinned = torch.empty(n, pin_memory=True)
    with ctx() as s, torch.cuda.stream(s):
        gpu.copy_(pinned, non_blocking=True)
""",
}


# Why each has no fix: the one reason that applies, from what the analysis knows.
WITHHELD_BECAUSE = {
    "function run by an executor": "it runs on the thread running Loader._load; the barrier belongs on "
    "the requesting thread, in Loader.request before load.py:17 (hands submit a job)",
    "stream from a property": "the stream is spelt `self.next_stream`, which a barrier would evaluate "
    "again (a property, a call or an index may give another stream)",
    "inside another stream block": "the block is inside another stream block, where `current_stream()` "
    "is that side stream, not the compute stream",
    "stream field that is None on some devices": "`self.stream` may be None (no stream on some devices)",
    "device module chosen by an argument": "the block's device module is chosen when it runs (by a call "
    "with arguments), so a barrier cannot spell that module's current stream",
    "stream bound by an earlier item of the with": "an earlier item of the same `with` makes the stream",
}


@pytest.mark.parametrize("case", list(NO_BARRIER_FIX), ids=list(NO_BARRIER_FIX))
def test_barrier_fix_is_withheld_where_it_would_be_wrong(lint: Lint, case: str) -> None:
    findings = lint({"load.py": NO_BARRIER_FIX[case]}, select=("KVG001", "KVG004")).findings
    assert findings
    assert all(f.fix is None for f in findings)
    assert all(f.fix_hint.endswith(f"(no automatic fix: {WITHHELD_BECAUSE[case]})") for f in findings), [
        f.fix_hint for f in findings
    ]


GIVEN_ITS_STREAM = """\
import torch
from cuda.bindings import driver


def store(n, attrs, stream):
    gpu = torch.zeros(n, device="cuda")
    cpu = torch.empty(n, pin_memory=True)
    driver.cuMemcpyBatchAsync([cpu.data_ptr()], [gpu.data_ptr()], [n], 1, attrs, [0], 1, stream.cuda_stream)
"""


def test_a_copy_given_its_stream_says_there_is_no_block_to_put_a_barrier_before(lint: Lint) -> None:
    [finding] = lint({"store.py": GIVEN_ITS_STREAM}, select=("KVG001",)).findings
    assert finding.fix_hint.endswith(
        "(no automatic fix: the copy is given its stream as an argument, not run inside a block "
        "that enters it)"
    )


def _corpus_files(project: str) -> dict[str, str]:
    root = Path(__file__).parent / "corpus" / project
    return {path.relative_to(root).as_posix(): path.read_text() for path in root.rglob("*.py")}


TWO_BLOCKS = _corpus_files("srv_grammar_mask_upload_buggy")


def _fixed(lint: Lint, tmp_path: Path, files: dict[str, str]) -> tuple[int, list[Edit], str]:
    """How many findings, the edits that fix them, and the fixed grammar.py."""
    findings = lint(files, select=("KVG004",)).findings
    edits = fixes_by_path(findings)
    assert set(edits) <= {"sampler/grammar.py"}
    grammar = tmp_path / "sampler" / "grammar.py"
    grammar.write_text(apply_edits(grammar.read_text(), edits.get("sampler/grammar.py", [])))
    assert lint({}, select=("KVG004",)).findings == []
    return len(findings), edits.get("sampler/grammar.py", []), grammar.read_text()


BARRIER = "        self.copy_stream.wait_stream(torch.cuda.current_stream())\n"
FIRST_BLOCK = "        with torch.cuda.stream(self.copy_stream):\n            rows = upload("
SECOND_BLOCK = "        with torch.cuda.stream(self.copy_stream):\n            host_indices ="


def test_one_barrier_before_the_first_block_covers_every_unordered_block(lint: Lint, tmp_path: Path) -> None:
    """vLLM's grammar-bitmask shape: two stream blocks upload into buffers the compute stream
    reads (the first through a helper). One barrier before the first block orders both."""
    count, edits, fixed = _fixed(lint, tmp_path, TWO_BLOCKS)
    assert count == 2
    assert len(edits) == 1
    assert BARRIER + FIRST_BLOCK in fixed
    assert fixed.count(BARRIER) == 1


@pytest.mark.parametrize(
    ("change", "then"),
    [
        (
            # The compute stream uses the second buffer after the first block: a barrier there
            # does not cover that use.
            ("        mapping = []\n", "        self.indices.zero_()\n        mapping = []\n"),
            "used between",
        ),
        (
            # The first block runs on one path only: a barrier before it does not run on the other.
            (FIRST_BLOCK, "        if bitmask is not None:\n    " + FIRST_BLOCK.replace("\n", "\n    ")),
            "branch",
        ),
    ],
    ids=["buffer used between the blocks", "first block in a branch"],
)
def test_each_block_gets_its_own_barrier_where_the_first_does_not_cover_the_second(
    lint: Lint, tmp_path: Path, change: tuple[str, str], then: str
) -> None:
    files = dict(TWO_BLOCKS)
    assert change[0] in files["sampler/grammar.py"], then
    files["sampler/grammar.py"] = files["sampler/grammar.py"].replace(*change)
    count, edits, fixed = _fixed(lint, tmp_path, files)
    assert (count, len(edits)) == (2, 2)
    assert BARRIER + SECOND_BLOCK in fixed


def test_fix_keeps_crlf_line_endings(tmp_path: Path) -> None:
    source = LOAD_BLOCK.replace("\n", "\r\n")
    (tmp_path / "load.py").write_bytes(source.encode())
    fixed = _kvguard("check", "--fix", "--no-cache", "load.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    after = (tmp_path / "load.py").read_bytes().decode()
    assert after.count("\r\n") == after.count("\n") == source.count("\n") + 1
    assert "    stream.wait_stream(torch.cuda.current_stream())\r\n" in after


def test_constant_without_a_stream_sibling_has_no_fix(lint: Lint) -> None:
    code = CONSTANT_ANY.replace("CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 1\n", "")
    [finding] = lint({"store.py": code}, select=("KVG002",)).findings
    assert finding.fix is None
    assert "`CU_MEMCPY_SRC_ACCESS_ORDER_STREAM` is not defined or imported" in finding.fix_hint


def _kvguard(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kvguard", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_diff_changes_nothing_and_fix_writes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": "[tool.kvguard]\n", "store.py": STREAM_BLOCK})
    preview = _kvguard("check", "--diff", "--no-cache", "store.py", cwd=tmp_path)
    assert preview.returncode == 1, preview.stderr
    assert preview.stdout.startswith("--- a/store.py\n+++ b/store.py\n")
    assert "+        self.store_stream.wait_stream(torch.cuda.current_stream())\n" in preview.stdout
    assert (tmp_path / "store.py").read_text() == STREAM_BLOCK

    fixed = _kvguard("check", "--fix", "--no-cache", "store.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "fixed 1 finding(s) in 1 file(s)" in fixed.stderr
    assert (tmp_path / "store.py").read_text() != STREAM_BLOCK

    again = _kvguard("check", "--diff", "--no-cache", "store.py", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "")


def test_fix_refuses_standard_input(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kvguard", "check", "--fix", "-"],
        cwd=tmp_path,
        input=STREAM_BLOCK,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "--fix and --diff need files" in result.stderr
    assert "Traceback" not in result.stderr


_FILLER = st.sampled_from(["", "# note\n", "\n", "x = 1  # trailing\n", "    \n"])


@settings(max_examples=25, deadline=None)
@given(before=st.lists(_FILLER, max_size=4), after=st.lists(_FILLER, max_size=4))
def test_fix_keeps_every_other_byte(before: list[str], after: list[str]) -> None:
    head, tail = DRIVER_ANY.split("def store", 1)
    source = head + "".join(before) + "def store" + tail + "".join(after)
    line = source.splitlines().index(
        "    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY  # keep me"
    )
    start = len("    attrs.srcAccessOrder = ") + 1
    end = start + len("driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY")
    edit = Edit("x.py", "replace", Span(line + 1, start, line + 1, end), "driver.X.STREAM")
    expected = source.replace(
        "driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY", "driver.X.STREAM"
    )
    try:
        fixed = apply_edits(source, [edit])
    except FixError:
        # Refusing is allowed only where libcst itself cannot reproduce the file.
        assert (
            not source.startswith(libcst.parse_module(source).code)
            or libcst.parse_module(source).code != source
        )
        return
    assert fixed == expected


def test_fix_and_diff_together_are_refused_and_exit_zero_applies_to_diff(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": "[tool.kvguard]\n", "store.py": STREAM_BLOCK})
    both = _kvguard("check", "--fix", "--diff", "--no-cache", "store.py", cwd=tmp_path)
    assert both.returncode == 2
    assert "give one of the two" in both.stderr and "Traceback" not in both.stderr
    preview = _kvguard("check", "--diff", "--exit-zero", "--no-cache", "store.py", cwd=tmp_path)
    assert (preview.returncode, preview.stdout.startswith("--- a/store.py")) == (0, True)
    assert (tmp_path / "store.py").read_text() == STREAM_BLOCK


SHARED_ATTRIBUTES = """\
import torch
from cuda.bindings import driver

CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 1


def make_attrs():
    attrs = driver.CUmemcpyAttributes()
    # Needs ROCm 7.2.3 or later.

    # ``srcAccessOrder=3`` == CU_MEMCPY_SRC_ACCESS_ORDER_ANY /
    # hipMemcpySrcAccessOrderAny.
    attrs.srcAccessOrder = 3  # 3: ANY, fastest
    return attrs


def copy(dsts, srcs, sizes, n, stream):
    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [make_attrs()], [0], 1, stream.cuda_stream)


def store(gpu, n, stream):
    pinned = torch.empty(n, pin_memory=True)
    stream.wait_stream(torch.cuda.current_stream())
    copy([pinned.data_ptr()], [gpu.data_ptr()], [n], 1, stream)
"""
LOAD_THROUGH_THE_SAME_HELPER = """

def load(gpu, n, stream):
    pinned = torch.empty(n, pin_memory=True)
    stream.wait_stream(torch.cuda.current_stream())
    copy([gpu.data_ptr()], [pinned.data_ptr()], [n], 1, stream)
"""


def test_source_order_fix_spells_the_named_constant_and_keeps_comments_true(
    lint: Lint, tmp_path: Path
) -> None:
    """A bare `1` under a comment that still says `3 == ANY` is what a reviewer rejects."""
    before = lint({"memops.py": SHARED_ATTRIBUTES}, select=("KVG002",))
    (finding,) = before.findings
    assert finding.fix is not None
    assert finding.fix.description == (
        "`3` becomes `CU_MEMCPY_SRC_ACCESS_ORDER_STREAM` (STREAM: the source is read in stream order)"
    )
    fixed = apply_edits(SHARED_ATTRIBUTES, fixes_by_path(before.findings)["memops.py"])
    assert fixed == SHARED_ATTRIBUTES.replace(
        "    # ``srcAccessOrder=3`` == CU_MEMCPY_SRC_ACCESS_ORDER_ANY /\n"
        "    # hipMemcpySrcAccessOrderAny.\n"
        "    attrs.srcAccessOrder = 3  # 3: ANY, fastest\n",
        "    # ``srcAccessOrder=1`` == CU_MEMCPY_SRC_ACCESS_ORDER_STREAM /\n"
        "    # hipMemcpySrcAccessOrderStream.\n"
        "    attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM  # 1: STREAM, fastest\n",
    )
    (tmp_path / "memops.py").write_text(fixed)
    assert lint({}, select=("KVG002",)).findings == []


def test_source_order_fix_is_withheld_where_loads_share_the_value(lint: Lint) -> None:
    result = lint({"memops.py": SHARED_ATTRIBUTES + LOAD_THROUGH_THE_SAME_HELPER}, select=("KVG002",))
    (finding,) = result.findings
    assert finding.fix is None
    assert finding.fix_hint.endswith(
        "(no automatic fix: the same `3` also sets the order of loads from host memory (the "
        "cuMemcpyBatchAsync at memops.py:18), which may keep it; changing it would switch them to "
        "STREAM too, so give the stores a STREAM value of their own)"
    )


def test_comment_rewrites_leave_other_comments_alone() -> None:
    source = "import os\n# about ANY, far above\n\n# ANY here\nx = 3  # 3 is ANY; see 7.2.3\ny = 3  # ANY\n"
    edits = [
        Edit("a.py", "replace", Span(5, 5, 5, 6), "1"),
        Edit("a.py", "comments", Span(5, 5, 5, 6), "", ((r"(?<![A-Za-z0-9])ANY(?![A-Za-z0-9])", "STREAM"),)),
    ]
    assert apply_edits(source, edits) == (
        "import os\n# about ANY, far above\n\n# STREAM here\nx = 1  # 3 is STREAM; see 7.2.3\ny = 3  # ANY\n"
    )
