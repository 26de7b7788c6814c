"""What the pre-commit hook costs on a vLLM-sized fork, run as a user runs it.

Usage: python3 benchmarks/hook_cost.py [TREE] [--output FILE]

TREE defaults to the vllm package of the 0.33.0 test environment (tests/vllm/venvs.py). It is
copied into a fresh git repository whose .pre-commit-config.yaml pins a snapshot of this
working tree (what a user's `repo:`/`rev:` pair would fetch), and these are timed, each a
whole `pre-commit` command:

- the first `pre-commit run --all-files` (no kvguard cache yet; the hook's environment is
  installed beforehand and timed apart);
- writing the baseline, then `pre-commit run --all-files` again with nothing changed;
- a commit whose only change is a comment in a file the analysis reads
  (vllm/v1/worker/gpu/model_runner.py), in one it parses only for the definitions other files
  use (vllm/logger.py), and in one it does not parse (vllm/version.py).

Each run must print one kvguard summary: one analysis, however many files pre-commit has.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
# What pre-commit needs of the hook repository: its manifest and an installable package.
HOOK_FILES = (".pre-commit-hooks.yaml", "pyproject.toml", "README.md", "kvguard", "lint_rules")
# Everyday edits: a comment added to a file the analysis interprets, to one it parses only for
# the definitions other files use (the logger), and to one it does not parse at all.
EDITED_FILES = (
    ("a file the analysis reads", "vllm/v1/worker/gpu/model_runner.py"),
    ("a file parsed for the definitions others use", "vllm/logger.py"),
    ("a file the analysis does not parse", "vllm/version.py"),
)


def default_tree() -> Path:
    sys.path.insert(0, str(REPOSITORY))
    from benchmarks.lint_speed import default_package

    return default_package()


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)


def git_repository(directory: Path, env: dict[str, str], message: str) -> str:
    for command in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", message]):
        run(command, directory, env).check_returncode()
    return run(["git", "rev-parse", "HEAD"], directory, env).stdout.strip()


def timed(label: str, command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, object]:
    start = time.perf_counter()
    result = run(command, cwd, env)
    seconds = round(time.perf_counter() - start, 1)
    summaries = [line for line in result.stdout.splitlines() if line.startswith(("Found ", "All checks"))]
    print(f"{label}: {seconds} s, exit {result.returncode}, {summaries}", flush=True)
    if len(summaries) > 1:
        raise SystemExit(f"{label}: {len(summaries)} kvguard runs in one pre-commit run")
    return {"run": label, "seconds": seconds, "exit_status": result.returncode, "summary": summaries}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tree", nargs="?", type=Path)
    parser.add_argument(
        "--output", type=Path, default=REPOSITORY / "benchmarks" / "results" / "hook-cost.json"
    )
    options = parser.parse_args()
    tree = options.tree or default_tree()
    beside = Path(sys.executable).parent / "pre-commit"
    pre_commit = str(beside) if beside.exists() else shutil.which("pre-commit") or "pre-commit"
    with tempfile.TemporaryDirectory(prefix="kvguard-hook-") as scratch:
        work = Path(scratch)
        env = {key: value for key, value in os.environ.items() if not key.startswith("PRE_COMMIT")}
        env.update(
            PRE_COMMIT_HOME=str(work / "pre-commit-home"),
            XDG_CACHE_HOME=str(work / "user-cache"),
            GIT_AUTHOR_NAME="b",
            GIT_AUTHOR_EMAIL="b@example.com",
            GIT_COMMITTER_NAME="b",
            GIT_COMMITTER_EMAIL="b@example.com",
        )
        hook = work / "kvguard"
        hook.mkdir()
        for name in HOOK_FILES:
            source = REPOSITORY / name
            copy = shutil.copytree if source.is_dir() else shutil.copy2
            copy(source, hook / name)
        rev = git_repository(hook, env, "kvguard")

        fork = work / "fork"
        shutil.copytree(tree, fork / tree.name, ignore=shutil.ignore_patterns("__pycache__"))
        (fork / ".pre-commit-config.yaml").write_text(
            f"repos:\n  - repo: {hook}\n    rev: {rev}\n    hooks:\n      - id: kvguard\n"
        )
        git_repository(fork, env, "fork")
        files = sorted(fork.rglob("*.py"))
        lines = sum(path.read_bytes().count(b"\n") for path in files)

        runs = [timed("install the hook's environment", [pre_commit, "install-hooks"], fork, env)]
        # --verbose: pre-commit prints a passing hook's output too, so every summary is seen.
        hook_run = [pre_commit, "run", "--verbose"]
        runs.append(timed("first run, --all-files, no cache", [*hook_run, "--all-files"], fork, env))
        (fork / "pyproject.toml").write_text('[tool.kvguard]\nbaseline = "kvguard-baseline.json"\n')
        kvguard = [sys.executable, "-m", "kvguard", "check", "--write-baseline", "kvguard-baseline.json"]
        runs.append(timed("write the baseline (kvguard check --write-baseline)", kvguard, fork, env))
        run(["git", "add", "."], fork, env).check_returncode()
        run(["git", "commit", "-qm", "adopt kvguard"], fork, env).check_returncode()
        runs.append(timed("rerun, --all-files, nothing changed", [*hook_run, "--all-files"], fork, env))
        for label, relative in EDITED_FILES:
            path = fork / relative
            path.write_text("# an everyday edit\n" + path.read_text())
            run(["git", "add", relative], fork, env).check_returncode()
            runs.append(timed(f"commit touching {label} ({relative})", [*hook_run], fork, env))
            run(["git", "commit", "-qm", "edit", "--no-verify"], fork, env).check_returncode()

    document = {
        "what": "pre-commit runs of the kvguard hook on a git repository holding the tree",
        "tree": {"path": str(tree), "python_files": len(files), "lines": lines},
        "kvguard_commit": run(
            ["git", "describe", "--always", "--dirty"], REPOSITORY, dict(os.environ)
        ).stdout.strip(),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "versions": {"pre-commit": version("pre-commit"), "libcst": version("libcst")},
        "runs": runs,
    }
    options.output.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {options.output}")


if __name__ == "__main__":
    main()
