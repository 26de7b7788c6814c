"""How fast `kvguard check` is on a large real tree, against libcst's bare parse of it.

Usage: python3 benchmarks/lint_speed.py [PACKAGE_DIR] [--output FILE]

PACKAGE_DIR defaults to the vllm package of the 0.33.0 test environment
(tests/vllm/venvs.py builds it). The tree is copied to a temporary directory first, so
the runs can change a file and write their cache there. Measured in one run, side by side:

- bare parse: `libcst.parse_module` of every .py file, one process;
- kvguard cold: `kvguard check --jobs 1 --no-cache` over the tree;
- kvguard cold, parallel: `--no-cache` with one worker per CPU;
- kvguard warm: a rerun with the cache filled;
- one changed file: `kvguard check FILE` after FILE changed, cache warm: a comment and then a
  statement appended to a file the analysis reads (it mentions streams), a statement added to
  a function of that file which the analysis enters, a comment appended to a file it does not
  read;
- the cold run and the changed read file again with CPython's default garbage-collector
  thresholds, where kvguard raises them for a run (kvguard/lint/engine.py), with the peak
  memory of each of those single-process runs.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import libcst

REPOSITORY = Path(__file__).resolve().parents[1]


def default_package() -> Path:
    sys.path.insert(0, str(REPOSITORY))
    from tests.vllm import venvs

    python = venvs.ensure_env("0.33.0")
    code = "import importlib.util; print(importlib.util.find_spec('vllm').submodule_search_locations[0])"
    found = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return Path(found.stdout.strip())


def bare_parse(files: list[Path]) -> float:
    start = time.perf_counter()
    for path in files:
        with contextlib.suppress(Exception):  # the baseline parses what it can
            libcst.parse_module(path.read_text(encoding="utf-8"))
    return time.perf_counter() - start


# kvguard run through this wrapper, which reports the process's peak memory at exit and, with
# DEFAULT_GC, puts back CPython's default collector thresholds where kvguard raises them for a
# run (kvguard/lint/engine.py), to measure that choice side by side.
_WRAPPER = (
    "import atexit, gc, resource, runpy, sys; import kvguard.lint.engine as engine\n"
    "if sys.argv[1] == 'DEFAULT_GC': engine._GC_THRESHOLDS = gc.get_threshold()\n"
    "atexit.register(lambda: print('peak_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
    " file=sys.stderr))\n"
    "sys.argv[0:2] = ['kvguard']\n"
    "runpy.run_module('kvguard', run_name='__main__')\n"
)


def kvguard(arguments: list[str], cwd: Path, default_gc: bool = False) -> tuple[float, int, int]:
    """Seconds, finding lines and peak memory (KiB, this process only) of one kvguard check."""
    start = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            _WRAPPER,
            "DEFAULT_GC" if default_gc else "RAISED",
            "check",
            "--exit-zero",
            "-q",
            *arguments,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - start
    peak = int(result.stderr.rsplit("peak_kb", 1)[1].split()[0])
    return seconds, len(result.stdout.splitlines()), peak


# A method of the edited file that every analysis of the tree runs (the store's hand-off).
ENTERED_FUNCTION = "wait_for_save"


def append(line: str) -> Callable[[str], str]:
    return lambda source: f"{source}\n{line}\n"


def add_to_function(name: str) -> Callable[[str], str]:
    """An edit that adds a statement at the end of the function ``name``."""

    def edit(source: str) -> str:
        function = next(
            node
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
        )
        assert function.end_lineno is not None
        lines = source.splitlines(keepends=True)
        lines.insert(function.end_lineno, " " * function.body[0].col_offset + "_changed = 1\n")
        return "".join(lines)

    return edit


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("package", nargs="?", type=Path)
    default_output = REPOSITORY / "benchmarks" / "results" / "lint-speed.json"
    parser.add_argument("--output", type=Path, default=default_output)
    options = parser.parse_args()
    source = options.package or default_package()
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / source.name
        shutil.copytree(source, tree, ignore=shutil.ignore_patterns("*.so", "*.pyc", "__pycache__"))
        files = sorted(tree.rglob("*.py"))
        lines = sum(path.read_bytes().count(b"\n") for path in files)
        print(f"{len(files)} files, {lines} lines; parsing them all with libcst...", flush=True)
        parse = bare_parse(files)
        peaks = {}
        cold, findings, peaks["kvguard --jobs 1 --no-cache"] = kvguard(
            ["--jobs", "1", "--no-cache", tree.name], tree.parent
        )
        cold_default_gc, _, peaks["kvguard --jobs 1 --no-cache, default gc thresholds"] = kvguard(
            ["--jobs", "1", "--no-cache", tree.name], tree.parent, default_gc=True
        )
        cold_parallel, _, _ = kvguard(["--no-cache", tree.name], tree.parent)
        kvguard([tree.name], tree.parent)  # fill the cache
        warm, _, _ = kvguard([tree.name], tree.parent)
        read = tree / "v1" / "simple_kv_offload" / "worker.py"
        unread = tree / "logger.py"
        timings = {}
        # A comment leaves the lowered code as it was; a module statement nothing reads changes
        # it but nothing the result depends on (kvguard/lint/dependencies.py): the cached
        # analysis answers both. A statement in a function the analysis enters changes what
        # it read: the analysis runs again.
        changes = (
            ("a comment appended to a file the analysis reads", read, append("# changed"), False),
            ("a statement appended to a file the analysis reads", read, append("_CHANGED = 1"), False),
            ("a statement appended, default gc thresholds", read, append("_CHANGED_AGAIN = 2"), True),
            (
                f"a statement added to {ENTERED_FUNCTION}, which the analysis enters",
                read,
                add_to_function(ENTERED_FUNCTION),
                False,
            ),
            ("a comment appended to a file it does not read", unread, append("# changed"), False),
        )
        for label, changed, edit, default_gc in changes:
            changed.write_text(edit(changed.read_text()))
            timings[label], _, peaks[label] = kvguard(
                [str(changed.relative_to(tree.parent))], tree.parent, default_gc
            )
    results = {
        "tree": str(source),
        "files": len(files),
        "lines": lines,
        "findings": findings,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "libcst": version("libcst"),
        "seconds": {
            "libcst parse_module, every file, 1 process": round(parse, 2),
            "kvguard --jobs 1 --no-cache": round(cold, 2),
            "kvguard --jobs 1 --no-cache, default gc thresholds": round(cold_default_gc, 2),
            "kvguard --no-cache, all CPUs": round(cold_parallel, 2),
            "kvguard, warm cache": round(warm, 2),
            **{f"kvguard {label}, warm cache": round(value, 2) for label, value in timings.items()},
        },
        "ratio kvguard --jobs 1 --no-cache / bare parse": round(cold / parse, 3),
        # Single-process runs (--jobs 1, or one file): the peak is the whole run's.
        "peak memory MiB": {label: round(kib / 1024) for label, kib in peaks.items()},
    }
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(results, indent=2) + "\n")
    for label, value in results["seconds"].items():
        print(f"{value:9.2f} s  {label}")
    ratio = results["ratio kvguard --jobs 1 --no-cache / bare parse"]
    print(f"ratio kvguard --jobs 1 --no-cache / bare parse: {ratio}")
    for label, mib in results["peak memory MiB"].items():
        print(f"{mib:9d} MiB peak  {label}")


if __name__ == "__main__":
    main()
