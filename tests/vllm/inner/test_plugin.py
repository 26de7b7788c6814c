"""kvguard's vllm.general_plugins entry point, loaded the way vLLM loads it, in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tomllib
import vllm

REPOSITORY = Path(__file__).resolve().parents[3]

PROBE = """
import sys
from vllm.config import KVTransferConfig
from vllm.plugins import load_general_plugins

load_general_plugins()
extended = getattr(getattr(KVTransferConfig, "has_connector", None), "kvguard_extended", None)
heavy = [name for name in ("kvguard.vllm.connector", "kvguard.runtime") if name in sys.modules]
print(extended, heavy)
"""


def _installed_metadata(site: Path) -> None:
    """kvguard's distribution metadata with the entry points pyproject.toml declares, as pip
    would install them (the code itself comes from the working tree on PYTHONPATH)."""
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in entries.items()]
    info = site / "kvguard-0.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kvguard\nVersion: 0.0.0\n")
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


def test_vllm_loads_the_plugin_and_it_widens_has_connector_only(tmp_path: Path) -> None:
    _installed_metadata(tmp_path)
    path = os.pathsep.join([str(tmp_path), str(REPOSITORY), os.environ.get("PYTHONPATH", "")])
    probe = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=os.environ | {"PYTHONPATH": path, "VLLM_PLUGINS": "kvguard"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert probe.returncode == 0, probe.stderr
    extended, heavy = probe.stdout.strip().splitlines()[-1].split(" ", 1)
    release = tuple(int(part) for part in vllm.__version__.split(".")[:2])
    # Releases before has_connector (0.19 to 0.23) have nothing to widen.
    assert extended == ("True" if release >= (0, 24) else "None")
    assert heavy == "[]"  # the plugin runs in every vLLM process: it must stay light
