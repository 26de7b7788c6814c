"""git, run on a tree kvguard did not write.

The checked tree may hold a directory laid out as a bare repository whose ``config`` names
programs for git to run (``core.fsmonitor``, hooks). git is asked to use only a repository
found the usual way (a ``.git`` directory or file), never one implied by the layout of the
directory it starts in, and to run no fsmonitor or hook.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

_SAFE_OPTIONS = (
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
)


def git(directory: Path | str, *arguments: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``directory``; CalledProcessError when it fails, OSError when there is no git."""
    return subprocess.run(
        ["git", *_SAFE_OPTIONS, "-C", str(directory), *arguments],
        capture_output=True,
        check=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
