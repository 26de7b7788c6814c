"""SARIF as GitHub code scanning reads it, and the documented workflow that uploads it."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from kvguard.lint import rule_docs
from kvguard.lint.reporters.sarif import FINGERPRINT_KEY
from lint_rules import RULES
from tests.lint.test_bad_input import RACE
from tests.lint.test_cli import ANY_ORDER, BRANCHED, SARIF_SCHEMA, kvguard

REPOSITORY = Path(__file__).resolve().parents[2]
CODE_SCANNING = REPOSITORY / "docs" / "code-scanning.md"


def _uri(result: dict[str, Any]) -> dict[str, str]:
    location: dict[str, str] = result["locations"][0]["physicalLocation"]["artifactLocation"]
    return location


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "fork"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "race.py").write_text(RACE)
    (root / "pkg" / "branched.py").write_text(BRANCHED)
    (root / "pkg" / "order.py").write_text(ANY_ORDER)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def _sarif(cwd: Path, *args: str) -> dict[str, Any]:
    result = kvguard("check", "--format", "sarif", "--exit-zero", *args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_uris_are_relative_to_the_project_root_wherever_kvguard_runs(project: Path) -> None:
    for cwd, target in ((project, "."), (project.parent, "fork"), (project / "pkg", ".")):
        run = _sarif(cwd, target)["runs"][0]
        assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": project.resolve().as_uri() + "/"}}
        uris = sorted({_uri(result)["uri"] for result in run["results"]})
        assert uris == ["pkg/branched.py", "pkg/order.py", "pkg/race.py"], cwd
        assert {_uri(result)["uriBaseId"] for result in run["results"]} == {"%SRCROOT%"}
        steps = [
            step["location"]["physicalLocation"]["artifactLocation"]
            for result in run["results"]
            for flow in result.get("codeFlows", [])
            for step in flow["threadFlows"][0]["locations"]
        ]
        assert steps and all(step["uriBaseId"] == "%SRCROOT%" for step in steps)


def test_results_carry_the_fingerprint_that_the_json_report_and_the_baseline_use(project: Path) -> None:
    results = _sarif(project)["runs"][0]["results"]
    findings = json.loads(kvguard("check", "--format", "json", cwd=project).stdout)["findings"]
    assert sorted(result["partialFingerprints"][FINGERPRINT_KEY] for result in results) == sorted(
        finding["fingerprint"] for finding in findings
    )
    moved = project / "pkg" / "race.py"
    moved.write_text("# moved\n\n" + RACE)
    again = _sarif(project)["runs"][0]["results"]
    assert {r["partialFingerprints"][FINGERPRINT_KEY] for r in again} == {
        r["partialFingerprints"][FINGERPRINT_KEY] for r in results
    }


def _fences_close(markdown: str) -> bool:
    """Every fence stands on a line of its own, and every opened fence is closed."""
    open_fence = False
    for line in markdown.splitlines():
        if "```" not in line:
            continue
        if line.strip() != line or not re.fullmatch(r"```(python|toml|yaml|sh)?", line):
            return False
        if open_fence and line != "```":
            return False
        open_fence = not open_fence
    return not open_fence


def test_every_rule_page_renders_its_code_blocks(project: Path) -> None:
    rules = _sarif(project)["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in RULES]
    for rule in rules:
        assert _fences_close(rule["help"]["markdown"]), rule["id"]
        assert "helpUri" not in rule  # kvguard's pyproject names no repository yet
    assert _fences_close((REPOSITORY / "docs" / "rules.md").read_text())
    assert not _fences_close("```python\nx = 1```\n")


def test_the_help_uri_is_the_rules_document_when_the_repository_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rule_docs, "repository_url", lambda: "https://github.com/example/kvguard/")
    assert rule_docs.help_uri(RULES[1]) == (
        "https://github.com/example/kvguard/blob/HEAD/docs/rules.md#kvg001-unordered-device-to-host-copy"
    )
    assert f"## {RULES[1].code} {RULES[1].name}\n" in (REPOSITORY / "docs" / "rules.md").read_text()


def test_docs_rules_md_is_current() -> None:
    expected = rule_docs.rules_document(RULES)
    assert (REPOSITORY / "docs" / "rules.md").read_text() == expected, (
        "regenerate: python -m kvguard.lint.rule_docs > docs/rules.md"
    )


def _workflow(document: Path) -> dict[str, Any]:
    """The YAML block of ``document`` that uploads SARIF."""
    blocks = re.findall(r"^```yaml\n(.*?)^```$", document.read_text(), re.DOTALL | re.MULTILINE)
    uploads = [block for block in blocks if "upload-sarif" in block]
    assert len(uploads) == 1, f"{document} has {len(uploads)} code-scanning workflows"
    workflow: dict[str, Any] = yaml.safe_load(uploads[0])
    return workflow


def test_the_documented_workflow_uploads_what_kvguard_writes(project: Path) -> None:
    workflow = _workflow(CODE_SCANNING)
    assert workflow["permissions"]["security-events"] == "write"
    steps = workflow["jobs"]["kvguard"]["steps"]
    cached = next(step for step in steps if step.get("uses", "").startswith("actions/cache@"))
    assert set(cached["with"]["path"].split()) == {".kvguard_cache", "~/.cache/kvguard"}
    upload = next(
        step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    )
    commands = [shlex.split(step["run"]) for step in steps if step.get("run", "").startswith("kvguard ")]
    assert commands, "the workflow runs no kvguard command"
    for command in commands:
        assert "--exit-zero" in command or upload.get("if") in ("always()", "success() || failure()")
        result = kvguard(*command[1:], cwd=project)
        assert result.returncode == 0, result.stderr
    written = json.loads((project / upload["with"]["sarif_file"]).read_text())
    jsonschema.validate(written, json.loads(SARIF_SCHEMA.read_text()))
    assert {result["ruleId"] for result in written["runs"][0]["results"]} == {"KVG001", "KVG002"}


def test_the_readme_shows_the_same_workflow() -> None:
    readme = REPOSITORY / "README.md"
    if "upload-sarif" not in readme.read_text():
        pytest.skip("the README has no code-scanning workflow")
    assert _workflow(readme) == _workflow(CODE_SCANNING)
