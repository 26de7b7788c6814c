"""Build and cache one virtual environment per vLLM release for the adapter tests.

vLLM releases pin their own torch (0.23.0: torch 2.11.0, 0.33.0: torch 2.14.0), so the adapter
tests cannot run in the main test environment. Each release gets a venv under
`~/.cache/kvguard-tests/vllm-<version>/` (or `$KVGUARD_TEST_CACHE/vllm-<version>/`) holding vLLM,
its torch, cuda-bindings and pytest. kvguard itself is not installed there: the inner test run
puts the repository on PYTHONPATH, so a changed working tree never needs a rebuild.

A marker file is written only after a complete install and records what was installed; an env
without it (an interrupted install) or with other requirements is deleted and built again.
Builds take a file lock, so two test runs never build the same env at once.

Also a script: `python3 tests/vllm/venvs.py 0.23.0 0.33.0` builds (or checks) those envs.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TextIO

RELEASES = ("0.23.0", "0.33.0")
MARKER = "kvguard-env-complete"


def cache_root() -> Path:
    return Path(os.environ.get("KVGUARD_TEST_CACHE", "~/.cache/kvguard-tests")).expanduser()


def requirements(version: str) -> list[str]:
    # cuda-bindings and pytest are what the inner run needs besides vLLM: kvguard.runtime
    # imports cuda.bindings, and the adapter tests run under that env's pytest.
    return [f"vllm=={version}", "cuda-bindings>=12.8", "pytest>=7"]


def env_dir(version: str) -> Path:
    return cache_root() / f"vllm-{version}"


def env_python(version: str) -> Path:
    return env_dir(version) / "bin" / "python"


def is_complete(version: str) -> bool:
    marker = env_dir(version) / MARKER
    return marker.is_file() and marker.read_text() == _marker_text(version)


def ensure_env(version: str, log: Path | None = None) -> Path:
    """Return the env's python, building the env first unless a complete one is cached."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"vllm-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not is_complete(version):
            _build(version, log or root / f"vllm-{version}.install.log")
    return env_python(version)


def _marker_text(version: str) -> str:
    return "\n".join(requirements(version)) + "\n"


def _build(version: str, log: Path) -> None:
    env = env_dir(version)
    if env.exists():  # an interrupted or outdated install: start over
        shutil.rmtree(env)
    started = time.monotonic()
    with open(log, "w") as out:
        _run([sys.executable, "-m", "venv", str(env)], out)
        _run(
            [
                str(env / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--progress-bar",
                "off",
                *requirements(version),
            ],
            out,
        )
    (env / MARKER).write_text(_marker_text(version))
    print(
        f"kvguard: built {env} in {time.monotonic() - started:.0f} s (log: {log})",
        file=sys.stderr,
    )


def _run(command: list[str], out: TextIO) -> None:
    result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            f"building the vLLM test env failed: {' '.join(command)} exited with "
            f"{result.returncode}; see {out.name}"
        )


if __name__ == "__main__":
    for requested in sys.argv[1:] or RELEASES:
        print(ensure_env(requested))
