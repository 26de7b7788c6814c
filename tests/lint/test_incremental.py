"""An analysis result reused across edits it does not depend on (kvguard.lint.dependencies):
the edits that reuse it, the ones that do not, and, over the corpus, that a reused result is
always the one a run from scratch gives."""

from __future__ import annotations

import ast
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvguard.lint import engine
from kvguard.lint.config import Settings
from kvguard.lint.engine import CheckResult, run_check
from kvguard.lint.interpreter import Interpreter
from lint_rules import RULES
from tests.lint.conftest import KNOWN, write_tree
from tests.lint.test_bad_input import RACE

RULE_OBJECTS = [rule() for rule in RULES]
CORPUS = Path(__file__).parent / "corpus"

# A function nothing calls and that names nothing the analysis knows: no run enters it.
UNREAD = "\n\ndef describe(count):\n    return count * 2\n"


def _check(root: Path, use_cache: bool = True) -> CheckResult:
    return run_check([root], Settings(root=root), RULE_OBJECTS, KNOWN, jobs=1, use_cache=use_cache)


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per run of the interpreter."""
    runs: list[int] = []
    real = Interpreter.run
    monkeypatch.setattr(Interpreter, "run", lambda self: runs.append(1) or real(self))
    return runs


def test_edits_the_analysis_does_not_read_reuse_its_result(tmp_path: Path, analyses: list[int]) -> None:
    write_tree(tmp_path, {"a.py": RACE + UNREAD})
    assert [f.code for f in _check(tmp_path).findings] == ["KVG001"] and len(analyses) == 1
    # A new body for a function no run entered, then a module constant nothing reads.
    (tmp_path / "a.py").write_text(RACE + UNREAD.replace("count * 2", "count * 3 + 1"))
    assert [f.code for f in _check(tmp_path).findings] == ["KVG001"] and len(analyses) == 1
    with (tmp_path / "a.py").open("a") as stream:
        stream.write("\nCHANGED = 1\n")
    assert [f.code for f in _check(tmp_path).findings] == ["KVG001"] and len(analyses) == 1


def test_edits_the_analysis_depends_on_run_it_again(tmp_path: Path, analyses: list[int]) -> None:
    write_tree(tmp_path, {"a.py": RACE + UNREAD})
    _check(tmp_path)
    # A new call anywhere may make a function an entry point or stop it being one.
    (tmp_path / "a.py").write_text(RACE + UNREAD.replace("count * 2", "abs(count)"))
    assert [f.code for f in _check(tmp_path).findings] == ["KVG001"] and len(analyses) == 2
    # The copy's own function: the barrier is now there.
    fixed = RACE.replace("with torch", "stream.wait_stream(torch.cuda.current_stream())\n    with torch")
    (tmp_path / "a.py").write_text(fixed + UNREAD)
    assert _check(tmp_path).findings == [] and len(analyses) == 3
    # Lines moved: the result names lines, so it is computed again.
    (tmp_path / "a.py").write_text("LIMIT = 4\n" + fixed + UNREAD)
    assert _check(tmp_path).findings == [] and len(analyses) == 4


def test_a_new_module_runs_the_analysis_again(tmp_path: Path, analyses: list[int]) -> None:
    write_tree(tmp_path, {"a.py": RACE})
    _check(tmp_path)
    write_tree(tmp_path, {"b.py": RACE.replace("def ", "def other_")})
    assert [Path(f.path).name for f in _check(tmp_path).findings] == ["a.py", "b.py"] and len(analyses) == 2


def test_a_result_holds_from_any_working_directory(
    tmp_path: Path, analyses: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files go by their paths from the project root inside a run: a run from inside the
    package reads the summaries and reuses the result a run from the root left, and shows
    the finding from where it runs."""
    write_tree(tmp_path, {"pyproject.toml": "[tool.kvguard]\n", "pkg/__init__.py": "", "pkg/a.py": RACE})
    monkeypatch.chdir(tmp_path)
    settings = Settings(root=tmp_path, config_file=tmp_path / "pyproject.toml")
    first = run_check([Path("pkg")], settings, RULE_OBJECTS, KNOWN, jobs=1, use_cache=True)
    assert [(f.path, f.code) for f in first.findings] == [("pkg/a.py", "KVG001")]
    monkeypatch.chdir(tmp_path / "pkg")
    parsed: list[str] = []
    real = engine.summarize
    monkeypatch.setattr(engine, "summarize", lambda path, *rest: parsed.append(path) or real(path, *rest))
    inside = run_check([Path()], settings, RULE_OBJECTS, KNOWN, jobs=1, use_cache=True)
    assert [(f.path, f.code) for f in inside.findings] == [("a.py", "KVG001")]
    assert [f.fingerprint for f in inside.findings] == [f.fingerprint for f in first.findings]
    assert parsed == [] and len(analyses) == 1


def _functions_with_blocks(source: str) -> list[tuple[int, int]]:
    """(last line, body indentation) of each function whose body starts on a line of its own."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body[0].lineno > node.lineno:
            assert node.end_lineno is not None
            found.append((node.end_lineno, node.body[0].col_offset))
    return found


def _int_constants(source: str) -> list[ast.Assign]:
    """The module-level ``NAME = <int>`` statements of a file."""
    return [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and type(node.value.value) is int
    ]


def _edit(source: str, kind: str, choice: int) -> str:
    """One edit of a kind a developer makes, at the ``choice``-th place it can go."""
    if kind == "module statement":
        return source + "\n_EDITED = 1\n"
    if kind == "line at the top":
        return "_EDITED = 1\n" + source
    if kind == "module constant changed":
        constants = _int_constants(source)
        if not constants:
            return source + "\n_EDITED = 1\n"
        node = constants[choice % len(constants)]
        lines = source.splitlines(keepends=True)
        lines[node.lineno - 1] = f"{ast.unparse(node.targets[0])} = {node.value.value % 3 + 1}\n"
        return "".join(lines)
    if kind == "keyword flipped":
        places = [i for i in range(len(source)) if source.startswith("=True", i)]
        if not places:
            return source + "\n_EDITED = 1\n"
        at = places[choice % len(places)]
        return source[:at] + "=False" + source[at + len("=True") :]
    functions = _functions_with_blocks(source)
    if not functions:
        return source + "\n_EDITED = 1\n"
    last, indent = functions[choice % len(functions)]
    added = {"statement in a function": "_edited = 1", "call in a function": "print(0)"}[kind]
    lines = source.splitlines(keepends=True)
    lines.insert(last, " " * indent + added + "\n")
    return "".join(lines)


PROJECTS = sorted(path.name for path in CORPUS.iterdir() if path.is_dir())
KINDS = (
    "module statement",
    "line at the top",
    "statement in a function",
    "call in a function",
    "module constant changed",
    "keyword flipped",
)


@settings(max_examples=40)
@given(
    project=st.sampled_from(PROJECTS),
    edits=st.lists(
        st.tuples(st.sampled_from(KINDS), st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=3
    ),
)
def test_a_reused_result_is_the_result_from_scratch(project: str, edits: list[tuple[str, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / project
        shutil.copytree(CORPUS / project, root)
        files = sorted(root.rglob("*.py"))
        _check(root)  # fills the cache
        for kind, which_file, choice in edits:
            path = files[which_file % len(files)]
            path.write_text(_edit(path.read_text(), kind, choice))
            incremental = _check(root)
            assert incremental.findings == _check(root, use_cache=False).findings


@pytest.mark.parametrize("kind", KINDS)
def test_each_edit_changes_the_code_and_stays_python(kind: str) -> None:
    edited = _edit(RACE + UNREAD, kind, 1)
    ast.parse(edited)
    assert edited != RACE + UNREAD


def _module_constants(project: str) -> list[tuple[str, int]]:
    """(file, index) of every module-level integer constant of a corpus project."""
    found = []
    for path in sorted((CORPUS / project).rglob("*.py")):
        source = path.read_text()
        count = len(_int_constants(source))
        found += [(path.relative_to(CORPUS / project).as_posix(), index) for index in range(count)]
    return found


CONSTANTS = [(project, *place) for project in PROJECTS for place in _module_constants(project)]


@pytest.mark.parametrize(("project", "file", "index"), CONSTANTS)
def test_a_changed_module_constant_is_seen(tmp_path: Path, project: str, file: str, index: int) -> None:
    """Every module constant of the corpus changed in turn (source orders among them): the
    runs that read it depend on it."""
    root = tmp_path / project
    shutil.copytree(CORPUS / project, root)
    _check(root)
    path = root / file
    path.write_text(_edit(path.read_text(), "module constant changed", index))
    assert _check(root).findings == _check(root, use_cache=False).findings


STAGER = """import torch


class Stager:
    def __init__(self, n, device):
        self.device = device
        self.buf = torch.zeros(n, device=device)
        self.host = torch.empty(n, pin_memory=True)
        self.side = torch.cuda.Stream()

    def update(self, x):
        self.buf.add_(x)

    def store(self):
        with torch.cuda.stream(self.side):
            self.host.copy_(self.buf, non_blocking=True)
"""
DESCRIBE = "\n    def describe(self):\n        return torch.cuda.get_device_properties(self.device)\n"


def test_a_method_that_shows_a_parameter_is_a_cuda_device_places_it(tmp_path: Path) -> None:
    # An edit elsewhere in the class shows the parameter is a CUDA device: where the memory
    # allocated on it lives changes, so the cached result cannot stand.
    write_tree(tmp_path, {"a.py": STAGER + DESCRIBE.replace("self.device", "0")})
    before = _check(tmp_path).findings
    assert [f.code for f in before] == ["KVG001"] and "does not place" in before[0].message
    (tmp_path / "a.py").write_text(STAGER + DESCRIBE)
    after = _check(tmp_path).findings
    assert [f.code for f in after] == ["KVG001"] and "(GPU to host)" in after[0].message
