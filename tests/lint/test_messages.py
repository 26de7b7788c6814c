"""Messages a CUDA user reads without knowing kvguard's internals."""

from __future__ import annotations

import re

import pytest

from kvguard.lint.values import StreamV
from lint_rules.stream_barrier import stream_phrase, wait_advice
from tests.lint.conftest import Lint
from tests.lint.test_cli import ANY_ORDER

LOAD = (
    "import torch\n\n"
    "def load(gpu, n, stream):\n"
    "    pinned = torch.empty(n, pin_memory=True)\n"
    "    with torch.cuda.stream(stream):\n"
    "        gpu.copy_(pinned, non_blocking=True)\n"
)
IN_PLACE_STREAM = (
    "import torch\n\n"
    "def store(gpu):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    with torch.cuda.stream(torch.cuda.Stream()):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n"
)


def test_source_order_is_named_with_what_it_lets_the_driver_do(lint: Lint) -> None:
    (finding,) = lint({"order.py": ANY_ORDER}, select=("KVG002",)).findings
    assert finding.message == (
        "cuMemcpyBatchAsync may read its GPU source out of stream order: source access order ANY "
        "(3: the driver may read the source at any time, even before the work queued ahead of the copy "
        "on its stream has finished and after the call returns), from "
        "`driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY` set in the copy attributes "
        "(order.py:5)"
    )
    assert finding.fix_hint.startswith(
        "request source access order STREAM (1: the source is read in stream order, after the work "
        "queued ahead of the copy)"
    )


def test_a_load_is_told_in_neutral_words(lint: Lint) -> None:
    (finding,) = lint({"load.py": LOAD}, select=("KVG004",)).findings
    assert "requested" not in finding.message + finding.fix_hint
    assert finding.fix_hint.startswith(
        "before the copy is issued, on the thread whose compute stream uses the destination, call "
        "`stream.wait_stream(torch.cuda.current_stream())`"
    )


def test_a_stream_made_in_place_is_named_by_where_it_was_made(lint: Lint) -> None:
    (finding,) = lint({"store.py": IN_PLACE_STREAM}, select=("KVG001",)).findings
    assert "on a side stream made at store.py:5 is not ordered" in finding.message
    assert "`a stream" not in finding.fix_hint


@pytest.mark.parametrize(
    ("stream", "phrase"),
    [
        (StreamV("opaque:self.side", "self.side"), "side stream `self.side`"),
        (StreamV("pkg/a.py:3:10", "a stream created here"), "a side stream made at pkg/a.py:3"),
        (StreamV("pkg/a.py:3:10@pkg/b.py:7:1", "a stream created here"), "a side stream made at pkg/a.py:3"),
        (
            StreamV("opaque:an unresolved stream", "an unresolved stream"),
            "a side stream the analysis could not name",
        ),
    ],
)
def test_streams_without_a_spelling_get_no_code_span(stream: StreamV, phrase: str) -> None:
    assert stream_phrase(stream) == phrase
    advice = wait_advice(stream, "the producer stream")
    spans = re.findall(r"`([^`]*)`", advice)
    assert all(not span.startswith(("a ", "an ")) for span in spans), advice
    if stream.label == "self.side":
        assert spans[0] == "self.side.wait_stream(torch.cuda.current_stream())"
    else:
        assert advice.startswith("make the stream the copy runs on wait for the producer stream")


PLATFORM_BATCH_COPY = """\
import ctypes

import torch
from cuda.bindings import driver

from .platforms import current_platform

_batch_copy = None


def _resolve():
    if current_platform.is_rocm():
        return ctypes.CDLL("libamdhip64.so").hipMemcpyBatchAsync
    err, pointer, _ = driver.cuGetProcAddress(b"cuMemcpyBatchAsync", 12080, 0)
    return ctypes.CFUNCTYPE(ctypes.c_uint)(pointer)


def store(dsts, srcs, sizes, n, attrs, stream):
    global _batch_copy
    if _batch_copy is None:
        _batch_copy = _resolve()
    with torch.cuda.stream(stream):
        _batch_copy(dsts, srcs, sizes, n, attrs, None, 1, None, stream.cuda_stream)


def offload(n, stream):
    gpu = torch.zeros(n, device="cuda")
    cpu = torch.empty(n, pin_memory=True)
    store([cpu.data_ptr()], [gpu.data_ptr()], [n], 1, None, stream)
"""
ROCM_BRANCH = (
    '    if current_platform.is_rocm():\n        return ctypes.CDLL("libamdhip64.so").hipMemcpyBatchAsync\n'
)


@pytest.mark.parametrize("rocm_first", [True, False], ids=["ROCm branch first", "CUDA branch first"])
def test_a_copy_chosen_by_platform_is_named_by_its_cuda_spelling(lint: Lint, rocm_first: bool) -> None:
    """The pointer is HIP's or CUDA's batch copy, chosen by ``is_rocm()``: one copy, read as
    CUDA code whichever branch comes first."""
    code = PLATFORM_BATCH_COPY
    if not rocm_first:
        code = code.replace(ROCM_BRANCH, "").replace(
            "    return ctypes.CFUNCTYPE(ctypes.c_uint)(pointer)\n",
            "    if current_platform.is_cuda():\n"
            "        return ctypes.CFUNCTYPE(ctypes.c_uint)(pointer)\n"
            '    return ctypes.CDLL("libamdhip64.so").hipMemcpyBatchAsync\n',
        )
    files = {"pkg/__init__.py": "", "pkg/platforms.py": "current_platform = None\n", "pkg/memops.py": code}
    (finding,) = lint(files, select=("KVG001",)).findings
    assert finding.message.startswith("cuMemcpyBatchAsync (GPU to host) on side stream `stream`")
    assert "hip" not in finding.message + finding.fix_hint + "".join(s.message for s in finding.flow)


def test_a_copy_spelt_only_for_rocm_keeps_its_name(lint: Lint) -> None:
    code = PLATFORM_BATCH_COPY.replace(
        ROCM_BRANCH, '    return ctypes.CDLL("libamdhip64.so").hipMemcpyBatchAsync\n'
    )
    files = {"pkg/__init__.py": "", "pkg/platforms.py": "current_platform = None\n", "pkg/memops.py": code}
    (finding,) = lint(files, select=("KVG001",)).findings
    assert finding.message.startswith("hipMemcpyBatchAsync (GPU to host)")
