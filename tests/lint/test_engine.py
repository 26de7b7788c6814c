"""Suppressions, file discovery, parallel determinism and the summary cache."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.lint import engine
from kvguard.lint.cache import CACHE_DIRECTORY
from kvguard.lint.config import AnalysisSettings, Settings
from kvguard.lint.engine import run_check
from kvguard.lint.files import discover, is_excluded
from kvguard.lint.findings import Finding
from kvguard.lint.suppressions import read_suppressions
from lint_rules import RULES
from tests.lint.conftest import KNOWN, Lint, write_tree
from tests.lint.test_bad_input import RACE

RULE_OBJECTS = [rule() for rule in RULES]


def _race_with_comment(comment: str) -> str:
    return RACE.replace("non_blocking=True)\n", f"non_blocking=True)  {comment}\n")


@pytest.mark.parametrize(
    "comment",
    [
        "# kvguard: ignore[KVG001] ordered by the caller",
        "# kvguard: ignore",
        "# noqa: KVG001",
        "# noqa: E501, KVG001",
    ],
)
def test_line_suppressions(lint: Lint, comment: str) -> None:
    result = lint({"a.py": _race_with_comment(comment)})
    assert result.findings == []
    assert result.suppressed == 1


@pytest.mark.parametrize("comment", ["# kvguard: ignore[KVG002]", "# noqa: E501", "# noqa"])
def test_suppressions_of_other_codes_do_not_apply(lint: Lint, comment: str) -> None:
    result = lint({"a.py": _race_with_comment(comment)})
    unused = ["KVG102"] if "KVG002" in comment else []  # naming a code with no finding here
    assert [f.code for f in result.findings] == ["KVG001", *unused]


@pytest.mark.parametrize(
    ("comment", "meant"),
    [
        ("# kvguard: ignore-files[KVG001]", "write `# kvguard: ignore-file[KVG001]`"),
        ("# kvguard: ignore_file[KVG001]", "write `# kvguard: ignore-file[KVG001]`"),
        ("# kvguard: ignore [KVG001]", "write `# kvguard: ignore[KVG001]`"),
        ("# kvguard: ignore(KVG001)", "write `# kvguard: ignore[KVG001]`"),
        ("# kvguard: ignore=KVG001", "write `# kvguard: ignore[KVG001]`"),
        ("# kvguard: ignore[]", "name the codes in the brackets"),
        ("# kvguard: ignored, see PR 12", "the forms are"),
        ("# noqa KVG001", "write `# noqa: KVG001`"),
    ],
)
def test_a_malformed_suppression_suppresses_nothing_and_is_reported(
    lint: Lint, comment: str, meant: str
) -> None:
    """Read loosely, each of these once suppressed every code on its line, or in its file."""
    source = _race_with_comment(comment)
    result = lint({"a.py": source, "b.py": f"{comment}\n" + RACE})
    found = sorted((f.path, f.code) for f in result.findings)
    assert found == [("a.py", "KVG001"), ("a.py", "KVG101"), ("b.py", "KVG001"), ("b.py", "KVG101")]
    assert result.suppressed == 0
    malformed = next(f for f in result.findings if f.code == "KVG101")
    assert malformed.message.startswith(f"`{comment}` is not a kvguard suppression and suppresses nothing: ")
    assert meant in malformed.message


def test_unused_suppressions_are_reported_and_can_be_turned_off(lint: Lint) -> None:
    files = {
        "a.py": _race_with_comment("# kvguard: ignore[KVG001, KVG004] ordered by the caller"),
        "b.py": "# kvguard: ignore-file[KVG003]\nx = 1  # noqa: E501, KVG002\ny = 2  # kvguard: ignore\n",
    }
    result = lint(files)
    assert [(f.path, f.span.line, f.span.column, f.message) for f in result.findings] == [
        ("a.py", 5, 44, "unused suppression: no KVG004 finding on this statement"),
        ("b.py", 1, 1, "unused suppression: no KVG003 finding in this file"),
        ("b.py", 2, 8, "unused suppression: no KVG002 finding on this statement"),
        ("b.py", 3, 8, "unused suppression: no finding on this statement"),
    ]
    assert result.findings[0].fix_hint.startswith("remove KVG004 from the comment")
    every_other_rule = tuple(rule.code for rule in RULES if rule.code != "KVG102")
    assert lint(files, select=every_other_rule).findings == []


def test_a_suppression_used_by_a_rule_left_out_of_the_selection_is_used(lint: Lint) -> None:
    """Whether a comment is used must not depend on the run's selection (pre-commit may run
    `--select KVG004` while CI runs every rule)."""
    result = lint({"a.py": _race_with_comment("# kvguard: ignore[KVG001]")}, select=("KVG102",))
    assert result.findings == []


def test_an_unused_suppression_finding_is_not_silenced_by_the_comment_it_is_about(lint: Lint) -> None:
    result = lint({"a.py": "x = 1  # kvguard: ignore\n"})
    assert [f.code for f in result.findings] == ["KVG102"]


def test_suppression_on_any_line_of_a_multiline_statement(lint: Lint) -> None:
    source = RACE.replace(
        "        cpu.copy_(gpu, non_blocking=True)\n",
        "        cpu.copy_(\n"
        "            gpu,\n"
        "            non_blocking=True,  # kvguard: ignore[KVG001]\n"
        "        )\n",
    )
    assert lint({"a.py": source}).findings == []


def test_file_level_suppression(lint: Lint) -> None:
    assert lint({"a.py": "# kvguard: ignore-file[KVG001]\n" + RACE}).findings == []
    assert lint({"b.py": "# kvguard: ignore-file\n" + RACE}).findings == []


def test_unknown_code_in_a_suppression_is_reported(lint: Lint) -> None:
    result = lint({"a.py": _race_with_comment("# kvguard: ignore[KVG01]")})
    assert sorted(f.code for f in result.findings) == ["KVG001", "KVG100"]


def test_suppression_parser_ignores_hashes_in_strings() -> None:
    source = 'x = "# kvguard: ignore"\ny = 1  # noqa: KVG002\n'
    found, malformed = read_suppressions(source)
    assert [(s.line, s.codes) for s in found] == [(2, ("KVG002",))]
    assert malformed == []


@pytest.mark.parametrize(
    ("comment", "codes", "file_level"),
    [
        ("# kvguard: ignore[KVG001] ordered by the caller's event", ("KVG001",), False),
        ("# kvguard: ignore[KVG001,KVG004]", ("KVG001", "KVG004"), False),
        ("# kvguard: ignore[ KVG001, kvg004 ]", ("KVG001", "KVG004"), False),
        ("#kvguard:ignore[KVG001]", ("KVG001",), False),
        ("# kvguard: ignore", (), False),
        ("# kvguard: ignore the caller waits on the event", (), False),
        ("# kvguard: ignore-file[KVG002] loads only", ("KVG002",), True),
        ("# kvguard: ignore-file", (), True),
        ("# kvguard: ignore[KVG001]  # noqa: E501", ("KVG001",), False),
    ],
)
def test_the_documented_suppression_forms(comment: str, codes: tuple[str, ...], file_level: bool) -> None:
    found, malformed = read_suppressions(f"x = 1  {comment}\n")
    assert [(s.codes, s.file_level) for s in found] == [(codes, file_level)]
    assert malformed == []


@given(
    codes=st.lists(st.sampled_from(["KVG001", "KVG002", "E501", "F401", "kvg001"]), min_size=1, max_size=4),
    separator=st.sampled_from([",", ", ", " "]),
)
@settings(max_examples=60, deadline=None)
def test_noqa_keeps_only_our_codes(codes: list[str], separator: str) -> None:
    found, _ = read_suppressions(f"x = 1  # noqa: {separator.join(codes)}\n")
    ours = tuple(c.upper() for c in codes if c.upper().startswith("KVG"))
    assert [s.codes for s in found] == ([ours] if ours else [])


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_gitignore_and_excludes_are_honoured(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".gitignore": "generated/\nscratch.py\n",
            "src/a.py": RACE,
            "generated/b.py": RACE,
            "scratch.py": RACE,
            "vendor/c.py": RACE,
            ".venv/lib/d.py": RACE,
            "docs/conf.py": RACE,
        },
    )
    _git(tmp_path, "init", "-q")
    settings_ = Settings(root=tmp_path, extend_exclude=("vendor", "docs/*.py"))
    found = sorted(c.path.relative_to(tmp_path).as_posix() for c in discover([tmp_path], settings_, tmp_path))
    assert found == ["src/a.py"]


def test_explicit_paths_are_checked_unless_force_exclude(tmp_path: Path) -> None:
    write_tree(tmp_path, {"vendor/c.py": RACE})
    explicit = [tmp_path / "vendor" / "c.py"]
    assert len(discover(explicit, Settings(root=tmp_path, extend_exclude=("vendor",)), tmp_path)) == 1
    forced = Settings(root=tmp_path, extend_exclude=("vendor",), force_exclude=True)
    assert discover(explicit, forced, tmp_path) == []


def test_symlink_loops_terminate_and_files_are_checked_once(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/a.py": RACE})
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg")
    (tmp_path / "alias").symlink_to(tmp_path / "pkg")
    (tmp_path / "pkg" / "b.py").symlink_to(tmp_path / "pkg" / "a.py")
    found = discover([tmp_path], Settings(root=tmp_path), tmp_path)
    assert len(found) == 1


@pytest.mark.parametrize(
    ("pattern", "path", "excluded"),
    [
        ("build", "build/x.py", True),
        ("build", "src/build/x.py", True),
        ("src/build", "src/build/x.py", True),
        ("src/build", "other/src/build/x.py", False),
        ("*_pb2.py", "api/x_pb2.py", True),
        ("tests/*.py", "tests/t.py", True),
        ("tests/*.py", "src/tests/t.py", False),
    ],
)
def test_exclude_patterns(tmp_path: Path, pattern: str, path: str, excluded: bool) -> None:
    assert is_excluded(tmp_path / path, tmp_path, [pattern]) is excluded


def test_parallel_run_matches_serial_run(lint: Lint) -> None:
    files = {
        f"pkg/m{i:02}.py": RACE if i % 3 else RACE.replace("stream)", "stream, extra)") for i in range(40)
    }
    files["pkg/broken.py"] = "def store(stream:\n    stream.wait_stream(other)\n"
    serial = lint(files, jobs=1)
    parallel = lint(files, jobs=2)
    assert serial.findings == parallel.findings
    assert len(serial.findings) == 41
    assert [f.path for f in serial.findings] == sorted(f.path for f in serial.findings)


def test_a_package_outside_any_project_gets_its_cache_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed package (no configuration, no git): the analysis reads the package, the
    cache goes to the working directory, as ruff's does, not into site-packages."""
    site = tmp_path / "site-packages"
    write_tree(site / "pkg", {"__init__.py": "", "race.py": RACE})
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = run_check([site / "pkg"], Settings(root=work), RULE_OBJECTS, KNOWN, jobs=1, use_cache=True)
    assert [f.code for f in result.findings] == ["KVG001"]
    assert not list(site.rglob(CACHE_DIRECTORY))
    assert list((work / CACHE_DIRECTORY).glob("*/summaries-*.json"))


def test_cache_is_reused_and_invalidated_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"a.py": RACE, "b.py": "x = 1\n"})
    settings_ = Settings(root=tmp_path)

    def check() -> list[tuple[str, str]]:
        result = run_check([Path(".")], settings_, RULE_OBJECTS, KNOWN, jobs=1, use_cache=True)
        return [(f.path, f.code) for f in result.findings]

    assert check() == [("a.py", "KVG001")]
    cache_files = list((tmp_path / CACHE_DIRECTORY).glob("*/summaries-*.json"))
    assert len(cache_files) == 1
    assert list((tmp_path / CACHE_DIRECTORY).glob("*/analysis/*.json"))
    assert (tmp_path / CACHE_DIRECTORY / ".gitignore").read_text().endswith("*\n")

    import kvguard.lint.engine as engine

    calls: list[str] = []
    real = engine.summarize
    monkeypatch.setattr(
        engine, "summarize", lambda path, data, *rest: calls.append(path) or real(path, data, *rest)
    )
    assert check() == [("a.py", "KVG001")]
    assert calls == []  # everything came from the cache
    (tmp_path / "a.py").write_text(
        RACE.replace("with torch", "stream.wait_stream(torch.cuda.current_stream())\n    with torch")
    )
    assert check() == []
    assert calls == ["a.py"]


def test_an_edit_that_leaves_the_lowered_code_as_it_was_reuses_the_analysis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comment appended to a file the analysis reads changes no lowered code: the cached
    analysis answers. A new statement in an analysed function changes it: the analysis runs."""
    from kvguard.lint.interpreter import Interpreter

    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path, {"a.py": RACE})
    settings_ = Settings(root=tmp_path)
    runs: list[int] = []
    real = Interpreter.run
    monkeypatch.setattr(Interpreter, "run", lambda self: runs.append(1) or real(self))

    def check() -> list[str]:
        result = run_check([Path(".")], settings_, RULE_OBJECTS, KNOWN, jobs=1, use_cache=True)
        return [f.code for f in result.findings]

    assert check() == ["KVG001"] and len(runs) == 1
    (tmp_path / "a.py").write_text(RACE + "\n# a note for readers\n")
    assert check() == ["KVG001"] and len(runs) == 1
    fixed = RACE.replace("with torch", "stream.wait_stream(torch.cuda.current_stream())\n    with torch")
    (tmp_path / "a.py").write_text(fixed)
    assert check() == [] and len(runs) == 2


def test_a_directory_named_on_the_command_line_is_checked_even_if_excluded(tmp_path: Path) -> None:
    write_tree(tmp_path, {"examples/a.py": RACE, "examples/vendor/b.py": RACE})
    settings_ = Settings(root=tmp_path, extend_exclude=("examples", "vendor"))
    assert discover([tmp_path], settings_, tmp_path) == []
    found = [
        c.path.relative_to(tmp_path).as_posix()
        for c in discover([tmp_path / "examples"], settings_, tmp_path)
    ]
    assert found == ["examples/a.py"]


def _codes_with(tmp_path: Path, source: str, analysis: AnalysisSettings) -> list[str]:
    write_tree(tmp_path, {"a.py": source})
    settings_ = Settings(root=tmp_path, analysis=analysis)
    result = run_check([tmp_path / "a.py"], settings_, RULE_OBJECTS, KNOWN, jobs=1, use_cache=False)
    return [f.code for f in result.findings]


BARRIER_HELPER = (
    "import torch\nimport mylib\n\n"
    "def store(gpu, stream):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    mylib.order_behind_compute(stream)\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n"
)
COPY_HELPER = (
    "import torch\nfrom mylib import kernels\n\n"
    "def store(gpu, stream):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    with torch.cuda.stream(stream):\n"
    "        kernels.move_blocks(gpu, cpu)\n"
)
PRODUCER = (
    "import torch\n\n"
    "class Runner:\n"
    "    def store(self, gpu):\n"
    "        cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "        with torch.cuda.stream(self.compute_stream):\n"
    "            cpu.copy_(gpu, non_blocking=True)\n"
)
THREAD_LOOP = (
    "import torch\n\n"
    "class Saver:\n"
    "    def __init__(self):\n"
    "        self.stream = torch.cuda.Stream()\n\n"
    "    def loop(self, gpu):\n"
    "        cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "        self.stream.wait_stream(torch.cuda.current_stream())\n"
    "        with torch.cuda.stream(self.stream):\n"
    "            cpu.copy_(gpu, non_blocking=True)\n"
)


@pytest.mark.parametrize(
    ("source", "taught", "before", "after"),
    [
        (BARRIER_HELPER, AnalysisSettings(barrier_functions=("mylib.order_behind_compute",)), ["KVG001"], []),
        (COPY_HELPER, AnalysisSettings(copy_functions=("kernels.move_blocks",)), [], ["KVG001"]),
        (PRODUCER, AnalysisSettings(producer_streams=("self.compute_stream",)), ["KVG001"], []),
        (THREAD_LOOP, AnalysisSettings(copy_thread_functions=("Saver.loop",)), [], ["KVG001"]),
    ],
    ids=["barrier-functions", "copy-functions", "producer-streams", "copy-thread-functions"],
)
def test_configuration_teaches_the_analysis(
    tmp_path: Path, source: str, taught: AnalysisSettings, before: list[str], after: list[str]
) -> None:
    assert _codes_with(tmp_path, source, AnalysisSettings()) == before
    assert _codes_with(tmp_path, source, taught) == after


def test_a_run_collects_cycles_rarely_and_restores_the_callers_thresholds(tmp_path: Path) -> None:
    import gc

    from kvguard.lint import engine

    seen: list[tuple[int, int, int]] = []

    class Probe(RULES[0]):  # a real rule, whose check only looks at the thresholds
        def check(self, model: object) -> Iterator[Finding]:
            seen.append(gc.get_threshold())
            yield from ()

    write_tree(tmp_path, {"a.py": RACE})
    before = gc.get_threshold()
    run_check([tmp_path / "a.py"], Settings(root=tmp_path), [Probe()], KNOWN, jobs=1, use_cache=False)
    assert seen == [engine._GC_THRESHOLDS] and gc.get_threshold() == before


def test_an_internal_error_in_one_entry_point_costs_only_its_paths(
    lint: Lint, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kvguard.lint.interpreter import Interpreter

    real = Interpreter._external

    def broken(self: Interpreter, dotted: str, *rest: object) -> object:
        if dotted.endswith("explode"):
            raise ValueError("boom")
        return real(self, dotted, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(Interpreter, "_external", broken)
    odd = "import torch\n\ndef f(s):\n    torch.explode(s.wait_stream)\n"
    result = lint({"race.py": RACE, "odd.py": odd})
    assert [(f.path, f.code) for f in result.findings] == [("race.py", "KVG001")]
    assert any("internal error" in w and "odd.f" in w and "boom" in w for w in result.warnings)


def test_the_importers_of_a_record_type_the_parsed_code_builds_are_parsed_and_no_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A payload record a parsed file builds from another module is handled by the modules that
    import it; importers of that module's other classes and functions are not parsed for it."""
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/offload.py": (
                "import torch\nfrom pkg.types import StoreResult, Helper, util\n\n"
                "def store(host, gpu):\n"
                "    side = torch.cuda.Stream()\n"
                "    with torch.cuda.stream(side):\n"
                "        host.copy_(gpu, non_blocking=True)\n"
                "    util()\n"
                "    return StoreResult(host), Helper()\n"
            ),
            "pkg/types.py": (
                "from dataclasses import dataclass\n\n@dataclass\nclass StoreResult:\n    host: object\n\n"
                "class Helper:\n    pass\n\ndef util():\n    return 1\n"
            ),
            "pkg/reader.py": (
                "from pkg.types import StoreResult\n\ndef read(r: StoreResult):\n    return r.host\n"
            ),
            "pkg/other.py": "from pkg.types import Helper, util\n\ndef use():\n    return Helper(), util()\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    settings = Settings(root=tmp_path)
    candidates = discover([tmp_path / "pkg"], settings, tmp_path)
    parsed = {
        Path(summary.path).name
        for summary in engine._summaries(candidates, engine.display_path, None, 1, None, {}, set())
        if summary.parsed
    }
    assert {"offload.py", "types.py", "reader.py"} <= parsed
    assert "other.py" not in parsed


def test_what_the_importers_of_a_record_type_call_from_other_modules_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module parsed because it imports a record type a parsed file builds may hand that
    record to a class of a third module that names nothing the gate knows (a worker routing
    jobs to handlers): that class is parsed too, beside the definitions parsed before."""
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/handler.py": (
                "import torch\nfrom pkg.types import Job\n\n"
                "class Handler:\n"
                "    def run(self, job: Job):\n"
                "        side = torch.cuda.Stream()\n"
                "        with torch.cuda.stream(side):\n"
                "            job.host.copy_(job.gpu, non_blocking=True)\n"
                "        return Job(job.host, job.gpu)\n"
            ),
            "pkg/types.py": (
                "from dataclasses import dataclass\n\n"
                "@dataclass\nclass Job:\n    host: object\n    gpu: object\n"
            ),
            "pkg/connector.py": (
                "from pkg.types import Job\nfrom pkg.routing import Router, describe\n\n"
                "class Connector:\n"
                "    def __init__(self):\n        self.router = Router()\n\n"
                "    def start(self, host, gpu):\n        return self.router.route(Job(host, gpu))\n"
            ),
            "pkg/routing.py": (
                "class Router:\n"
                "    def __init__(self):\n        self.by_kind = {}\n\n"
                "    def route(self, job):\n        return self.by_kind['store'].run(job)\n\n"
                "def describe(job):\n    return str(job)\n"
            ),
        },
    )
    monkeypatch.chdir(tmp_path)
    settings = Settings(root=tmp_path)
    candidates = discover([tmp_path / "pkg"], settings, tmp_path)
    parsed = {
        Path(summary.path).name: summary
        for summary in engine._summaries(candidates, engine.display_path, None, 1, None, {}, set())
        if summary.parsed
    }
    assert {"handler.py", "types.py", "connector.py", "routing.py"} <= parsed.keys()
    routing = parsed["routing.py"].code
    assert routing is not None and "Router" in {cls.name for cls in routing.classes}
