"""The cached paths of two kvguard installs side by side: the warm rerun and one changed file.

Usage: python3 benchmarks/cache_compare.py OTHER_PYTHON [PACKAGE_DIR] [--rounds N] [--output FILE]

OTHER_PYTHON is the interpreter of an environment with another kvguard installed (say, an
earlier commit: `git worktree add /tmp/before REV && python3 -m venv /tmp/before-venv &&
/tmp/before-venv/bin/pip install -e /tmp/before`). This interpreter's kvguard is the other
side. Each side gets its own copy of PACKAGE_DIR (default: the vllm package of the 0.33.0 test
environment) and fills its cache; then, N rounds, each side in turn: a warm rerun over the tree,
and `kvguard check FILE` after FILE (one the analysis reads) changed. Alternating rounds keep a
busy machine's drift out of the ratio; the medians are reported.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lint_speed import REPOSITORY, default_package

CHANGED = Path("v1") / "simple_kv_offload" / "worker.py"


def timed(python: str, arguments: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [python, "-I", "-m", "kvguard", "check", "--exit-zero", "-q", *arguments],
        cwd=cwd,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("other_python")
    parser.add_argument("package", nargs="?", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--output", type=Path, default=REPOSITORY / "benchmarks" / "results" / "cache-compare.json"
    )
    options = parser.parse_args()
    source = options.package or default_package()
    sides = {"this": sys.executable, "other": options.other_python}
    times: dict[str, dict[str, list[float]]] = {side: {"warm": [], "changed": []} for side in sides}
    with tempfile.TemporaryDirectory() as scratch:
        trees = {}
        for side, python in sides.items():
            trees[side] = Path(scratch) / side / source.name
            shutil.copytree(
                source, trees[side], ignore=shutil.ignore_patterns("*.so", "*.pyc", "__pycache__")
            )
            timed(python, [source.name], trees[side].parent)  # fill the cache
        for round_ in range(options.rounds):
            for side, python in sides.items():
                tree = trees[side]
                times[side]["warm"].append(timed(python, [source.name], tree.parent))
                with (tree / CHANGED).open("a") as stream:
                    stream.write(f"\n# changed {round_}\n")
                changed = str(Path(source.name) / CHANGED)
                times[side]["changed"].append(timed(python, [changed], tree.parent))
    medians = {
        side: {k: round(statistics.median(v), 3) for k, v in runs.items()} for side, runs in times.items()
    }
    results = {
        "tree": str(source),
        "rounds": options.rounds,
        "other": options.other_python,
        "median seconds": medians,
        "ratio this / other": {
            k: round(medians["this"][k] / medians["other"][k], 3) for k in ("warm", "changed")
        },
        "seconds": times,
    }
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps({k: results[k] for k in ("median seconds", "ratio this / other")}, indent=2))


if __name__ == "__main__":
    main()
