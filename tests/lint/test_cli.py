"""The command line as users run it: a real process, real files, real exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.lint.test_bad_input import RACE

REPOSITORY = Path(__file__).resolve().parents[2]
# OASIS's SARIF 2.1.0 schema, as published with the standard (its $id names where).
SARIF_SCHEMA = Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json"

CLEAN = (
    "import torch\n"
    "def store(gpu, stream):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    stream.wait_stream(torch.cuda.current_stream())\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n"
)
ANY_ORDER = (
    "from cuda.bindings import driver\n\n"
    "def store(dsts, srcs, sizes, n, stream):\n"
    "    attrs = driver.CUmemcpyAttributes()\n"
    "    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY\n"
    "    driver.cuMemcpyBatchAsync(dsts, srcs, sizes, n, [attrs], [0], 1, stream.cuda_stream)\n"
)
BRANCHED = (
    "import torch\n"
    "def store(gpu, stream, eager):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    if eager:\n"
    "        stream.wait_stream(torch.cuda.current_stream())\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n"
)


def kvguard(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kvguard", *args],
        cwd=cwd,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.kvguard]\n")
    (tmp_path / "race.py").write_text(RACE)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_exit_status_is_1_with_findings_and_0_without(project: Path) -> None:
    flagged = kvguard("check", "race.py", cwd=project)
    assert flagged.returncode == 1
    assert flagged.stdout.startswith("race.py:5:9: KVG001 Tensor.copy_")
    clean = kvguard("check", "clean.py", cwd=project)
    assert clean.returncode == 0, clean.stdout
    assert clean.stdout == "All checks passed (1 file checked, 1 more read for context).\n"
    assert kvguard("check", "race.py", "--exit-zero", cwd=project).returncode == 0


def test_text_output_shows_source_caret_path_and_summary(project: Path) -> None:
    (project / "branched.py").write_text(BRANCHED)
    result = kvguard("check", "branched.py", cwd=project)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("branched.py:7:9: KVG001 ")
    assert lines[2] == " 7 |         cpu.copy_(gpu, non_blocking=True)"
    assert lines[3] == "   |         " + "^" * len("cpu.copy_(gpu, non_blocking=True)")
    assert lines[4] == "    via branched.py:4:5: path where the if at line 4 is not taken"
    assert lines[-2] == (
        "Found 1 finding (1 KVG001) in 1 file (1 file checked, 2 more read for context). "
        "1 fixable with --fix (--diff to preview)."
    )
    assert lines[-1] == "What each rule flags and how to fix it: kvguard explain KVG001."
    assert result.stderr == ""  # no progress output when stderr is not a terminal


def test_quiet_prints_findings_only(project: Path) -> None:
    result = kvguard("check", "-q", ".", cwd=project)
    assert result.stdout.splitlines() == [line for line in result.stdout.splitlines() if ": KVG" in line]
    assert len(result.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["check", "missing.py"], "missing.py: no such file or directory"),
        (["check", "--select", "KVG9", "."], "unknown rule code or prefix 'KVG9'"),
        (["check", "--format", "xml", "."], "'xml' is not one of"),
        (["check", "--config", "nope.toml", "."], "--config nope.toml: no such file"),
        (["explain", "KVG999"], "unknown rule code 'KVG999'"),
    ],
)
def test_usage_errors_exit_2_without_traceback(project: Path, arguments: list[str], message: str) -> None:
    result = kvguard(*arguments, cwd=project)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("bogus = 1\n", "unknown key 'tool.kvguard.bogus'"),
        ("ignore = 3\n", "'tool.kvguard.ignore' must be a list of strings"),
        (
            "select = 'KVG001'\n",
            "'tool.kvguard.select' must be a list of strings, such as [\"...\"], not 'KVG001'",
        ),
        ("extend-exclude = 'build'\n", "'tool.kvguard.extend-exclude' must be a list of strings"),
        (
            "per-file-ignores = { 'tests/*' = 'KVG001' }\n",
            "'tool.kvguard.per-file-ignores.tests/*' must be a list",
        ),
        ("select = ['KVG77']\n", "'tool.kvguard.select': unknown rule code or prefix 'KVG77'"),
        ("force-exclude = 'yes'\n", "'tool.kvguard.force-exclude' must be true or false"),
        ("per-file-ignores = ['x']\n", "'tool.kvguard.per-file-ignores' must be a table"),
        ("select = [\n", "invalid TOML"),
        ("copy-functions = [1]\n", "'tool.kvguard.copy-functions' must be a list of strings"),
    ],
)
def test_bad_configuration_exits_2_naming_the_key(project: Path, table: str, message: str) -> None:
    (project / "pyproject.toml").write_text(f"[tool.kvguard]\n{table}")
    result = kvguard("check", ".", cwd=project)
    assert result.returncode == 2
    assert message in result.stderr
    assert "pyproject.toml" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            b"[tool]\nkvguard = 1\n",
            "'tool.kvguard' must be a table ([tool.kvguard] with keys under it), not 1",
        ),
        (b"[tool]\nkvguard = 'on'\n", "'tool.kvguard' must be a table"),
        (b"\xff\xfe[tool.kvguard]\n", "invalid TOML: not UTF-8"),
    ],
)
def test_a_malformed_kvguard_table_exits_2_without_traceback(
    project: Path, document: bytes, message: str
) -> None:
    (project / "pyproject.toml").write_bytes(document)
    result = kvguard("check", ".", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert message in result.stderr and "pyproject.toml" in result.stderr
    assert "Traceback" not in result.stderr


def test_configuration_selects_ignores_and_per_file_ignores(project: Path) -> None:
    (project / "order.py").write_text(ANY_ORDER)
    sub = project / "legacy"
    sub.mkdir()
    (sub / "old.py").write_text(RACE)
    (project / "pyproject.toml").write_text(
        "[tool.kvguard]\nselect = ['KVG001']\ninclude-uncertain = true\n"
        "per-file-ignores = { 'legacy/*' = ['KVG001'] }\n"
    )
    result = kvguard("check", "--format", "json", ".", cwd=project)
    codes = sorted((f["path"], f["code"]) for f in json.loads(result.stdout)["findings"])
    assert codes == [("order.py", "KVG001"), ("race.py", "KVG001")]
    ignored = kvguard("check", "--ignore", "KVG001", "--format", "json", ".", cwd=project)
    assert json.loads(ignored.stdout)["findings"] == []
    extended = kvguard("check", "--extend-select", "KVG002", "--format", "json", ".", cwd=project)
    assert {f["code"] for f in json.loads(extended.stdout)["findings"]} == {"KVG001", "KVG002"}


def test_nearest_pyproject_with_a_kvguard_table_applies(project: Path, tmp_path: Path) -> None:
    inner = project / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'inner'\n")  # no [tool.kvguard]
    (inner / "race.py").write_text(RACE)
    (project / "pyproject.toml").write_text("[tool.kvguard]\nignore = ['KVG001']\n")
    assert kvguard("check", "pkg", cwd=project).returncode == 0
    assert kvguard("check", "pkg", "--config", str(tmp_path / "none.toml"), cwd=project).returncode == 2


def test_json_report_schema(project: Path) -> None:
    (project / "branched.py").write_text(BRANCHED)
    document = json.loads(kvguard("check", "--format", "json", ".", cwd=project).stdout)
    assert document["schema_version"] == 1
    assert document["tool"]["name"] == "kvguard"
    assert document["summary"] == {
        "files_checked": 3,
        "findings": 2,
        "suppressed": 0,
        "uncertain_not_shown": 0,
        "baselined": 0,
        "by_code": {"KVG001": 2},
    }
    first = document["findings"][0]
    assert set(first) == {
        "code",
        "name",
        "message",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "flow",
        "fix_hint",
        "fix",
        "uncertain",
        "fingerprint",
    }
    assert first["uncertain"] is None
    assert len(first["fingerprint"]) == 32
    assert (first["path"], first["line"], first["column"], first["name"]) == (
        "branched.py",
        7,
        9,
        "unordered-device-to-host-copy",
    )
    assert first["flow"][0] == {
        "path": "branched.py",
        "line": 4,
        "column": 5,
        "message": "path where the if at line 4 is not taken",
    }
    assert first["fix"] == {
        "description": "stream.wait_stream(torch.cuda.current_stream()) before the stream block"
    }


def test_sarif_report_validates_against_the_official_schema(project: Path) -> None:
    (project / "branched.py").write_text(BRANCHED)
    (project / "order.py").write_text(ANY_ORDER)
    (project / "broken.py").write_text("def store(stream:\n    stream.wait_stream(other)\n")
    document = json.loads(kvguard("check", "--format", "sarif", ".", cwd=project).stdout)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.validate(document, schema)
    run = document["runs"][0]
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} >= {"KVG000", "KVG001", "KVG002"}
    results = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in run["results"]
    }
    assert ("KVG001", "branched.py") in results and ("KVG002", "order.py") in results
    assert ("KVG000", "broken.py") in results
    branched = next(
        r
        for r in run["results"]
        if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "branched.py"
    )
    steps = branched["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [s["location"]["physicalLocation"]["region"]["startLine"] for s in steps] == [4, 7]
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_github_annotations(project: Path) -> None:
    result = kvguard("check", "--format", "github", "race.py", cwd=project)
    assert result.stdout.splitlines() == [
        "::error title=kvguard (KVG001),file=race.py,line=5,col=9,endLine=5,endColumn=42::"
        "race.py:5:9: KVG001 " + result.stdout.split(": KVG001 ", 1)[1].splitlines()[0]
    ]
    assert "%0A" not in result.stdout


def test_output_file(project: Path) -> None:
    result = kvguard("check", "--format", "json", "--output", "report.json", ".", cwd=project)
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads((project / "report.json").read_text())["summary"]["findings"] == 1


def test_stdin_with_a_filename(project: Path) -> None:
    result = kvguard("check", "-", "--stdin-filename", "pkg/store.py", cwd=project, stdin=RACE.encode())
    assert result.returncode == 1
    assert result.stdout.startswith("pkg/store.py:5:9: KVG001")
    assert " 5 |         cpu.copy_(gpu, non_blocking=True)" in result.stdout


@pytest.mark.parametrize("content", [{}, {"notes.txt": "not python\n", "data/table.csv": "a,b\n"}])
def test_nothing_to_check_exits_2_saying_so(tmp_path: Path, content: dict[str, str]) -> None:
    (tmp_path / "tree").mkdir()
    for relative, text in content.items():
        (tmp_path / "tree" / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / relative).write_text(text)
    result = kvguard("check", "tree", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert "no Python files to check in tree: nothing was checked" in result.stderr
    assert "Traceback" not in result.stderr


def test_files_that_force_exclude_leaves_out_are_a_clean_run(project: Path) -> None:
    """What pre-commit hands over may all be excluded: that is no work, not a mistake."""
    (project / "pyproject.toml").write_text("[tool.kvguard]\nextend-exclude = ['race.py']\n")
    result = kvguard("check", "--force-exclude", "race.py", cwd=project)
    assert (result.returncode, result.stdout) == (0, "All checks passed (0 files checked).\n")


def test_a_self_referencing_link_is_skipped_with_a_warning_naming_it(project: Path, tmp_path: Path) -> None:
    (project / "loop.py").symlink_to("loop.py")
    linked = tmp_path / "linked"  # the project reached through a link: paths resolve differently
    linked.symlink_to(project)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    for cwd, target in ((project, "."), (project, "loop.py"), (tmp_path, str(linked))):
        result = kvguard("check", "-q", target, cwd=cwd)
        assert "Traceback" not in result.stderr, result.stderr
        assert "loop.py is a symbolic link loop (it leads back to itself): skipped" in result.stderr
        if target == "loop.py":
            assert result.returncode == 2 and "no Python files to check in loop.py" in result.stderr
        else:
            assert result.returncode == 1 and "race.py:5:9: KVG001" in result.stdout


def test_rules_and_explain(project: Path) -> None:
    listing = kvguard("rules", cwd=project).stdout.splitlines()
    assert [line.split()[0] for line in listing] == [
        "KVG000",
        "KVG001",
        "KVG002",
        "KVG003",
        "KVG004",
        "KVG100",
        "KVG101",
        "KVG102",
    ]
    assert all(line.split()[2] in ("on", "off") for line in listing)
    page = kvguard("explain", "kvg001", cwd=project)
    assert page.returncode == 0
    for heading in ("What it flags", "Why it matters", "Example", "Use instead", "How to fix"):
        assert f"\n{heading}\n" in page.stdout
    assert "store_stream.wait_stream(torch.cuda.current_stream())" in page.stdout


def test_version(project: Path) -> None:
    from kvguard import __version__

    assert kvguard("--version", cwd=project).stdout.strip() == f"kvguard, version {__version__}"


def test_checking_one_file_uses_the_whole_project_for_context(tmp_path: Path) -> None:
    from lint_rules import offload_shapes

    for relative, text in {**offload_shapes.BUGGY, "pkg/unrelated.py": CLEAN}.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    for touched in ("pkg/worker.py", "pkg/backend.py", "pkg/memops.py"):
        result = kvguard("check", "--format", "json", touched, cwd=tmp_path)
        document = json.loads(result.stdout)
        assert {f["code"] for f in document["findings"]} >= {"KVG001"}, touched
        assert document["summary"]["files_checked"] == 1
        first = next(f for f in document["findings"] if f["code"] == "KVG001")
        assert first["path"] == "pkg/memops.py"
        # From the worker's method, where the barrier belongs, to the backend.
        assert [step["path"] for step in first["flow"]][:3] == [
            "pkg/worker.py",
            "pkg/worker.py",
            "pkg/backend.py",
        ]
    unrelated = kvguard("check", "pkg/unrelated.py", cwd=tmp_path)
    assert (unrelated.returncode, unrelated.stdout) == (
        0,
        "All checks passed (1 file checked, 4 more read for context).\n",
    )


def test_the_quick_start_examples() -> None:
    racy = kvguard("check", "-q", "examples/store_race.py", cwd=REPOSITORY)
    assert racy.returncode == 1
    assert [line.split(" ", 2)[:2] for line in racy.stdout.splitlines()] == [
        ["examples/store_race.py:11:13:", "KVG001"],
        ["examples/store_race.py:19:5:", "KVG002"],
    ]
    fixed = kvguard("check", "examples/store_fixed.py", cwd=REPOSITORY)
    assert fixed.returncode == 0
    assert re.fullmatch(r"All checks passed \(1 file checked, \d+ more read for context\)\.\n", fixed.stdout)


def test_explain_on_a_terminal_without_a_terminal_on_standard_input(project: Path) -> None:
    """`echo | kvguard explain KVG001` in a terminal: the width comes from the output."""
    import pty

    leader, follower = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "kvguard", "explain", "KVG001"],
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert (result.returncode, result.stderr) == (0, "")


def test_staged_checks_what_a_commit_would_change(project: Path) -> None:
    outside = kvguard("check", "--staged", cwd=project)
    assert outside.returncode == 2 and "is not in a git work tree" in outside.stderr
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "clean.py"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "clean"], cwd=project, check=True)
    (project / "other.py").write_text(RACE)  # a race that is not staged
    subprocess.run([*git, "add", "race.py"], cwd=project, check=True)

    staged = kvguard("check", "-q", "--staged", cwd=project)
    assert (staged.returncode, staged.stdout.split(" ")[:2]) == (1, ["race.py:5:9:", "KVG001"])
    assert staged.stdout.count("KVG001") == 1
    assert kvguard("check", "--staged", "race.py", cwd=project).returncode == 2

    subprocess.run([*git, "commit", "-qm", "race"], cwd=project, check=True)
    everything = kvguard("check", "--staged", cwd=project)
    assert "no Python file is staged: checking the whole work tree" in everything.stderr
    headlines = [line for line in everything.stdout.splitlines() if ": KVG001 " in line]
    assert sorted(line.split(":")[0] for line in headlines) == ["other.py", "race.py"]

    between = kvguard_with_env(
        ["check", "-q", "--staged"], project, PRE_COMMIT_FROM_REF="HEAD~1", PRE_COMMIT_TO_REF="HEAD"
    )
    assert [line.split(":")[0] for line in between.stdout.splitlines()] == ["race.py"]


def kvguard_with_env(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kvguard", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
