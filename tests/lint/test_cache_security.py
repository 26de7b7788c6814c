"""Nothing kvguard reads from the checked tree runs code or decides a result unchecked: the
cache (plain data, authenticated with a key outside the project), symbolic links out of the
project, git metadata laid out in the tree, and packages beside the working directory."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kvguard import __version__
from kvguard.lint import serial
from kvguard.lint.cache import CACHE_DIRECTORY, SummaryCache, index_name, key_file, machine_key
from kvguard.lint.config import Settings
from kvguard.lint.engine import run_check
from kvguard.lint.facts import FileSummary
from kvguard.lint.ir import ModuleCode
from kvguard.lint.results import Analysis
from kvguard.lint.source import summarize
from lint_rules import RULES
from tests.lint.conftest import KNOWN, write_tree
from tests.lint.test_bad_input import RACE

REPOSITORY = Path(__file__).resolve().parents[2]


def _git(root: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-C", str(root), *arguments],
        check=True,
        capture_output=True,
    )


def _kvguard(
    cwd: Path, *arguments: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-m", "kvguard", "check", "--format", "json", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def _codes(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    return [(f["path"], f["code"]) for f in json.loads(result.stdout)["findings"]]


def _version_dir(root: Path) -> Path:
    return root / CACHE_DIRECTORY / __version__


class _RunsCode:
    """A pickle that, when loaded, writes a file: what an attacker would commit."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_a_committed_pickle_payload_runs_nothing_and_the_race_is_still_found(tmp_path: Path) -> None:
    project = tmp_path / "project"
    marker = tmp_path / "payload-ran"
    write_tree(project, {"race.py": RACE})
    version = _version_dir(project)
    version.mkdir(parents=True)
    payload = pickle.dumps(_RunsCode(marker))
    index = index_name(Settings(root=project).fingerprint())
    for name in ("summaries.pickle", index, "code/x.pickle", "analysis/x.pickle"):
        (version / name).parent.mkdir(exist_ok=True)
        (version / name).write_bytes(payload)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "cache with a payload")

    result = _kvguard(project, ".")

    assert not marker.exists()
    assert _codes(result) == [("race.py", "KVG001")]
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "tracked by git" in warnings[0], result.stderr
    # Ignored means neither read nor written: the committed files are as they were.
    assert (version / index).read_bytes() == payload


def test_an_untracked_cache_is_read_as_data_only(tmp_path: Path) -> None:
    """Not committed, but planted (an unpacked archive, a shared runner): still no code runs."""
    marker = tmp_path / "payload-ran"
    write_tree(tmp_path / "project", {"race.py": RACE})
    version = _version_dir(tmp_path / "project")
    version.mkdir(parents=True)
    index = index_name(Settings(root=tmp_path / "project").fingerprint())
    (version / index).write_bytes(pickle.dumps(_RunsCode(marker)))
    result = _kvguard(tmp_path / "project", ".")
    assert not marker.exists()
    assert _codes(result) == [("race.py", "KVG001")]


def _forge_no_findings(project: Path, attacker_home: Path) -> None:
    """What an attacker can commit: a cache made on their own machine for the racy tree, with
    the analysis result replaced by one that found nothing, signed with their own key."""
    env = {**os.environ, "XDG_CACHE_HOME": str(attacker_home)}
    assert _codes(_kvguard(project, ".", env=env)) == [("race.py", "KVG001")]
    (result_file,) = (_version_dir(project) / "analysis").glob("*.json")
    attacker_key = (attacker_home / "kvguard" / "cache-key").read_bytes()
    cache = SummaryCache(project, Settings(root=project).fingerprint(), attacker_key)
    name = f"analysis/{result_file.name}"
    forged = cache._read(name, Analysis)
    assert forged is not None
    forged.runs = []  # what it depends on is kept, so that the result is taken as holding
    cache._write(name, forged)


def test_a_forged_no_findings_entry_does_not_hide_the_race(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_tree(project, {"race.py": RACE})
    attacker = tmp_path / "attacker-cache"
    _forge_no_findings(project, attacker)
    # The forgery works where its key is (so this test can fail)...
    forged_env = {**os.environ, "XDG_CACHE_HOME": str(attacker)}
    assert _codes(_kvguard(project, ".", env=forged_env)) == []
    # ...and nowhere else: this user's key does not sign it.
    assert _codes(_kvguard(project, ".")) == [("race.py", "KVG001")]


@pytest.mark.parametrize("damage", ["truncated", "corrupted", "foreign", "empty", "other-version-format"])
def test_damaged_cache_files_are_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    project = tmp_path / "project"
    write_tree(project, {"race.py": RACE, "clean.py": "x = 1\n"})
    assert _codes(_kvguard(project, ".")) == [("race.py", "KVG001")]
    version = _version_dir(project)
    damaged = sorted(version.rglob("*.json"))
    # The index, the code of the one file that mentions streams, the analysis result.
    assert [p.parent.name for p in damaged] == ["analysis", "code", __version__]
    for path in damaged:
        data = path.read_bytes()
        path.write_bytes(
            {
                "truncated": data[: len(data) // 2],
                "corrupted": data[:-3] + b"}}]",
                "foreign": os.urandom(len(data)),
                "empty": b"",
                "other-version-format": pickle.dumps({"race.py": None}),
            }[damage]
        )
    assert _codes(_kvguard(project, ".")) == [("race.py", "KVG001")]
    key = machine_key()
    cache = SummaryCache(project, Settings(root=project).fingerprint(), key)
    (analysis,) = version.glob("analysis/*.json")
    assert cache._read(f"analysis/{analysis.name}", Analysis) is not None
    (code,) = version.glob("code/*.json")
    assert cache._read(f"code/{code.name}", ModuleCode) is not None
    index = cache._read(cache.index_name, dict[str, FileSummary])
    assert index is not None and {s.path for s in index.values()} == {"race.py", "clean.py"}


def test_lost_code_of_a_cached_file_is_read_again(tmp_path: Path) -> None:
    """The index says a file was parsed but its code file is gone: the file is read again
    rather than left out of the analysis (which would hide its findings)."""
    project = tmp_path / "project"
    write_tree(project, {"race.py": RACE, "other.py": "import torch\ns = torch.cuda.Stream()\n"})
    assert _codes(_kvguard(project, ".")) == [("race.py", "KVG001")]
    version = _version_dir(project)
    for path in [*version.glob("code/*.json"), *version.glob("analysis/*.json")]:
        path.unlink()
    (project / "other.py").write_text("import torch\ns = torch.cuda.Stream()  # changed\n")
    assert _codes(_kvguard(project, ".")) == [("race.py", "KVG001")]


def test_two_runs_at_once_leave_a_usable_cache(tmp_path: Path) -> None:
    project = tmp_path / "project"
    files = {f"m{i}.py": RACE.replace("store", f"store{i}") for i in range(24)}
    write_tree(project, files)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: _kvguard(project, "."), range(2)))
    expected = sorted((name, "KVG001") for name in files)
    assert [sorted(_codes(r)) for r in results] == [expected, expected]
    cache = SummaryCache(project, Settings(root=project).fingerprint(), machine_key())
    for name in files:
        data = (project / name).read_bytes()
        entry = cache.get(cache.key(name, data))
        assert entry is not None and entry.parsed, name
        assert cache.code(entry.cache_key) is not None, name
    assert sorted(_codes(_kvguard(project, "."))) == expected


def test_the_key_is_private_and_a_shared_one_is_refused(tmp_path: Path) -> None:
    key = machine_key()
    path = key_file()
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o077 == 0
    assert machine_key() == key  # made once, then reused
    path.chmod(0o644)
    project = tmp_path / "project"
    write_tree(project, {"race.py": RACE})
    result = _kvguard(project, ".")
    assert _codes(result) == [("race.py", "KVG001")]
    assert "readable by others" in result.stderr
    assert not (project / CACHE_DIRECTORY).exists()


def test_a_cache_directory_that_is_a_symlink_is_not_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = tmp_path / "project"
    write_tree(project, {"race.py": RACE})
    (project / CACHE_DIRECTORY).symlink_to(elsewhere, target_is_directory=True)
    result = _kvguard(project, ".")
    assert _codes(result) == [("race.py", "KVG001")]
    assert "not a directory" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_symlink_out_of_the_project_is_not_read_or_quoted(tmp_path: Path) -> None:
    secret = tmp_path / "home" / "credentials"
    secret.parent.mkdir()
    secret.write_text("aws_secret_access_key = NOT-FOR-LOGS(\n")
    outside_package = tmp_path / "home" / "pkg"
    write_tree(outside_package, {"x.py": "TOKEN = 'ALSO-NOT-FOR-LOGS'(\n"})
    project = tmp_path / "project"
    write_tree(project, {"race.py": RACE})
    (project / "leak.py").symlink_to(secret)
    (project / "linked").symlink_to(outside_package, target_is_directory=True)
    _git(project, "init", "-q")
    for cache in ([], ["--no-cache"]):
        text = subprocess.run(
            [sys.executable, "-I", "-m", "kvguard", "check", *cache, "."],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert "NOT-FOR-LOGS" not in text.stdout + text.stderr
        assert "race.py:5:9: KVG001" in text.stdout and "cpu.copy_(gpu" in text.stdout  # context kept
    found = sorted(_codes(_kvguard(project, ".")))
    assert found == [("leak.py", "KVG000"), ("linked", "KVG000"), ("race.py", "KVG001")]
    # The same file named on the command line (as a hook or a CI script passes files).
    named = _kvguard(project, "leak.py", "race.py")
    assert sorted(_codes(named)) == [("leak.py", "KVG000"), ("race.py", "KVG001")]
    assert "NOT-FOR-LOGS" not in named.stdout


def test_a_bare_repository_laid_out_in_the_tree_runs_nothing(tmp_path: Path) -> None:
    """A directory that looks like a bare repository, whose config names a program for git to
    run: git as kvguard calls it neither uses that repository nor runs the program."""
    project = tmp_path / "project"
    marker = tmp_path / "git-ran-it"
    evil = project / "evil"
    write_tree(evil, {"HEAD": "ref: refs/heads/main\n", "wt/race.py": RACE, "race.py": RACE})
    (evil / "objects").mkdir()
    (evil / "refs").mkdir()
    (evil / "config").write_text(
        f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = wt\n"
        f'\tfsmonitor = "touch {marker}; echo"\n'
    )
    for target in ("evil/race.py", "evil", "evil/wt/race.py"):
        result = _kvguard(project, target)
        assert not marker.exists(), target
        assert "KVG001" in {code for _, code in _codes(result)}, target


def test_python_dash_m_does_not_import_rules_from_the_checked_tree(tmp_path: Path) -> None:
    marker = tmp_path / "rules-ran"
    project = tmp_path / "project"
    write_tree(
        project,
        {
            "race.py": RACE,
            "lint_rules/__init__.py": f"open({str(marker)!r}, 'w').close()\nRULES = ()\n",
        },
    )
    result = subprocess.run(
        [sys.executable, "-m", "kvguard", "check", "--format", "json", "race.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert not marker.exists(), result.stderr
    assert _codes(result) == [("race.py", "KVG001")]


def test_summaries_of_real_code_round_trip_through_the_data_format() -> None:
    """Every lowered module of kvguard's own tree and examples decodes to what was encoded."""
    sources = sorted([*REPOSITORY.glob("kvguard/**/*.py"), *REPOSITORY.glob("examples/*.py")])
    assert len(sources) > 20
    for path in sources:
        summary = summarize(path.name, path.read_bytes())
        if summary.code is not None:
            assert serial.loads(serial.dumps(summary.code), ModuleCode) == summary.code, path
        assert serial.loads(serial.dumps(summary), FileSummary) == summary, path


def test_an_analysis_result_round_trips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"a.py": RACE, "b.py": (REPOSITORY / "examples" / "store_race.py").read_text()})
    rules = [rule() for rule in RULES]
    run_check([Path(".")], Settings(root=tmp_path), rules, KNOWN, jobs=1, use_cache=True)
    (result_file,) = (_version_dir(tmp_path) / "analysis").glob("*.json")
    cache = SummaryCache(tmp_path, Settings(root=tmp_path).fingerprint(), machine_key())
    analysis = cache._read(f"analysis/{result_file.name}", Analysis)
    assert analysis is not None and analysis.runs
    assert serial.loads(serial.dumps(analysis), Analysis) == analysis


def test_the_expected_shape_decodes() -> None:
    data = (
        b'["FileSummary", "a.py", ["ModuleCode", [], [], [], [], []], [], [], true, "", "", "", ["f"],'
        b' [], [], [], [], [], [[".helpers", ["fill"]]], []]'
    )
    assert serial.loads(data, FileSummary) == FileSummary(
        "a.py", ModuleCode(), parsed=True, exported=("f",), uses=((".helpers", ("fill",)),)
    )


@pytest.mark.parametrize(
    "data",
    [
        b'["Popen", "touch x"]',
        b'["FileSummary", "a.py", null, [], [], "yes", "", "", "", [], [], [], [], [], [], [], []]',
        b'["FileSummary", "a.py", ["Popen", []], [], [], true, "", "", "", [], [], [], [], [], [], [], []]',
        b'["FileSummary", "a.py", null, [], [], true, "", "", "", [1], [], [], [], [], [], [], []]',
        b'["FileSummary", "a.py", null, [], [], true, "", "", "", [], [], ["f", 2], [], [], [], [], []]',
        b'["FileSummary", "a.py", null, [], [], true, "", "", "", [], [], [], [], [], [], [["m", [2]]], []]',
        b'{"__class__": "os.system"}',
        b"[" * 100_000,
        b"\x80\x04",
    ],
)
def test_any_other_shape_is_refused(data: bytes) -> None:
    with pytest.raises(serial.DecodeError):
        serial.loads(data, FileSummary)
