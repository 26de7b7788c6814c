"""The code base stays ruff-clean, ruff-formatted and mypy-clean, and the linter never imports
torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPOSITORY, capture_output=True, text=True, timeout=600
    )


def test_ruff_is_clean() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_python_file_is_formatted_by_ruff() -> None:
    """One formatter for the repository (settings in pyproject.toml; the corpus, fixtures and
    examples are inputs whose layout the tests read, and are left as written)."""
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, "run `ruff format .`:\n" + result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_linter_imports_without_torch() -> None:
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"  # any import of torch now fails
        "import kvguard.cli, kvguard.lint.engine, lint_rules\n"
        "from kvguard.lint.reporters import text, json_format, sarif, github\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_runtime_imports_without_vllm() -> None:
    code = (
        "import sys\n"
        "sys.modules['vllm'] = None\n"  # any import of vllm now fails
        "import kvguard.runtime\n"
        "from kvguard.runtime import OrderedCopyBackend, CopyGuard, BatchCopier\n"
        "assert not any(name.startswith('vllm') and sys.modules[name] is not None\n"
        "               for name in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_kvguard_checks_its_own_repository_clean() -> None:
    result = _run("kvguard", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout
