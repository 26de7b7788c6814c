"""Runs the adapter tests (tests/vllm/inner) against each supported vLLM release.

Each release has its own cached env (venvs.py; built on first use, minutes; reruns are fast).
The inner run's pytest output is shown on failure, and a run that skipped or ran nothing fails.
"""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
import venvs  # tests/vllm has no __init__.py, so pytest puts it on sys.path

REPOSITORY = Path(__file__).resolve().parents[2]
INNER = Path(__file__).parent / "inner"


@pytest.mark.slow(5)
@pytest.mark.parametrize("release", venvs.RELEASES)
def test_adapter_suite_passes_on_release(release: str, tmp_path: Path) -> None:
    python = venvs.ensure_env(release)
    report = tmp_path / "inner.xml"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY),  # kvguard from this working tree, not an installed copy
        "HF_HUB_OFFLINE": "1",
        "VLLM_LOGGING_LEVEL": "WARNING",
    }
    result = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-c",
            str(INNER / "pytest.ini"),
            str(INNER),
            "-q",
            "--tb=short",
            f"--junitxml={report}",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    output = f"--- vLLM {release} adapter tests ---\n{result.stdout}\n{result.stderr[-4000:]}"
    assert result.returncode == 0, output
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert suite is not None, output
    counts = {key: int(suite.get(key, "0")) for key in ("tests", "skipped", "failures", "errors")}
    assert counts["tests"] > 0 and counts["skipped"] == 0, f"{counts}\n{output}"
    print(f"vLLM {release}: {counts['tests']} adapter tests passed")
