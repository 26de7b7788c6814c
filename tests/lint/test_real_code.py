"""kvguard over pinned releases of real offload code bases (lmcache, sglang, deepspeed,
megatron-core, transformers): no crash, every file read, and exactly the findings their triage
reports in docs/triage/ list, each read along its path and marked TRUE or FALSE."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lint import real_code

REPOSITORY = Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^\| `?([\w./-]+\.py:\d+) (KVG\d{3})`? \| (TRUE|FALSE|UNCLEAR) \|", re.MULTILINE)


def _triaged(report: str) -> dict[tuple[str, str], str]:
    text = (REPOSITORY / "docs" / "triage" / f"{report}.md").read_text()
    return {(place, code): verdict for place, code, verdict in _ROW.findall(text)}


# About how many minutes each check takes on 2 busy CPUs (tests/conftest.py starts the longest
# first).
_MINUTES = {"sglang": 30, "transformers": 15, "lmcache": 3, "deepspeed": 3, "megatron-core": 2}


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow(_MINUTES[name])) for name in sorted(_MINUTES)]
)
def test_findings_are_the_triaged_ones(name: str) -> None:
    tree = real_code.source_tree(name)
    result = subprocess.run(
        [
            sys.executable,
            "-I",
            "-m",
            "kvguard",
            "check",
            "--no-cache",
            "--format",
            "json",
            "--exit-zero",
            ".",
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=3600,  # a guard against a hang, not a speed check: sglang takes half of that on 2 busy CPUs
    )
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [f for f in findings if f["code"] == "KVG000"] == []  # every file read and parsed
    found = {(f"{f['path']}:{f['line']}", f["code"]) for f in findings}
    _, report = real_code.RELEASES[name]
    assert found == set(_triaged(report)), f"update docs/triage/{report}.md: the findings changed"


def test_precision_over_the_triaged_findings() -> None:
    verdicts = [v for _, report in real_code.RELEASES.values() for v in _triaged(report).values()]
    true = verdicts.count("TRUE")
    # The figure docs/triage/README.md states; a change of the triaged set must update both.
    summary = (REPOSITORY / "docs" / "triage" / "README.md").read_text()
    assert f"{true} of {len(verdicts)} findings are true" in summary


def test_every_pinned_release_is_checked() -> None:
    assert set(_MINUTES) == set(real_code.RELEASES)
