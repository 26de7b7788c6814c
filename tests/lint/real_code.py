"""Download and cache the Python sources of pinned releases of real offload code bases.

Each release's package archive (a wheel, or the sdist where there is no wheel) is fetched with
pip, and only its ``.py`` files are unpacked, under ``~/.cache/kvguard-tests/src/<name>-<version>/``
(or ``$KVGUARD_TEST_CACHE/src/...``). A marker written after a complete unpack makes reruns free;
a lock keeps two test runs from unpacking the same release at once. Nothing from these archives
is installed or run: kvguard only reads the files.

Also a script: ``python3 tests/lint/real_code.py`` fetches every release.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.vllm.venvs import cache_root

# name on the package index -> (version, name of its triage report under docs/triage/)
RELEASES = {
    "lmcache": ("0.5.6", "lmcache"),
    "sglang": ("0.5.23", "sglang"),
    "deepspeed": ("0.19.8", "deepspeed"),
    "megatron-core": ("0.16.1", "megatron-core"),
    "transformers": ("5.24.0", "transformers"),
}
_MARKER = "kvguard-sources-complete"


def source_tree(name: str) -> Path:
    """The directory holding the release's Python files, fetched first unless cached."""
    version, _ = RELEASES[name]
    root = cache_root() / "src"
    root.mkdir(parents=True, exist_ok=True)
    tree = root / f"{name}-{version}"
    with open(root / f"{name}-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (tree / _MARKER).is_file():
            _fetch(name, version, tree)
    return tree


def _fetch(name: str, version: str, tree: Path) -> None:
    if tree.exists():  # an interrupted unpack: start over
        shutil.rmtree(tree)
    with tempfile.TemporaryDirectory() as download:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--progress-bar",
                "off",
                "--dest",
                download,
                f"{name}=={version}",
            ],
            check=True,
            capture_output=True,
            timeout=1800,
        )
        archives = sorted(Path(download).iterdir())
        if len(archives) != 1:
            raise RuntimeError(f"pip download {name}=={version} gave {len(archives)} files")
        tree.mkdir(parents=True)
        _unpack_python(archives[0], tree)
    (tree / _MARKER).write_text(f"{name}=={version}\n")


def _unpack_python(archive: Path, tree: Path) -> None:
    """Only the ``.py`` files, at their paths inside the package (an sdist's top folder dropped)."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for member in wheel.namelist():
                if member.endswith(".py") and _safe(member):
                    target = tree / member
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(wheel.read(member))
        return
    with tarfile.open(archive) as sdist:
        for member in sdist.getmembers():
            inner = member.name.split("/", 1)[1] if "/" in member.name else ""
            if member.isfile() and inner.endswith(".py") and _safe(inner):
                source = sdist.extractfile(member)
                assert source is not None
                target = tree / inner
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read())


def _safe(member: str) -> bool:
    parts = Path(member).parts
    return bool(parts) and not Path(member).is_absolute() and ".." not in parts


if __name__ == "__main__":
    for package in RELEASES:
        print(source_tree(package))
