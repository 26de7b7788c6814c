"""Bad input never stops a run: each case is a KVG000 diagnostic and the rest is linted."""

from __future__ import annotations

import os
from pathlib import Path

from tests.lint.conftest import Lint

RACE = (
    "import torch\n"
    "def store(gpu, stream):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)\n"
)


def _by_path(result: object) -> dict[str, list[tuple[str, int, str]]]:
    found: dict[str, list[tuple[str, int, str]]] = {}
    for f in result.findings:  # type: ignore[attr-defined]
        found.setdefault(f.path, []).append((f.code, f.span.line, f.message))
    return found


def test_each_bad_file_is_a_diagnostic_and_the_race_is_still_found(lint: Lint, tmp_path: Path) -> None:
    (tmp_path / "dir.py").mkdir()
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing-target.py")
    deep = "stream = torch.cuda.current_stream(" + "(" * 5000 + "1" + ")" * 5001 + "\n"
    files: dict[str, str | bytes] = {
        "race.py": RACE,
        "syntax.py": "def store(stream:\n    stream.wait_stream(other)\n",
        "latin.py": b"# -*- coding: utf-8 -*-\nname = 'caf\xe9 stream'\n",
        "bad_cookie.py": b"# -*- coding: no-such-codec -*-\nx = 1\n",
        "bom.py": b"\xef\xbb\xbf" + RACE.encode(),
        "empty.py": "",
        "deep.py": deep,
        "generated.py": "TABLE = [\n" + "    (1, 2, 3),  # wait_stream\n" * 40_000 + "]\n",
    }
    result = lint(files)
    found = _by_path(result)
    assert [c for c, _, _ in found["race.py"]] == ["KVG001"]
    assert [c for c, _, _ in found["bom.py"]] == ["KVG001"]
    assert found["syntax.py"] == [("KVG000", 1, "syntax error: '(' was never closed")]
    assert found["latin.py"][0][:2] == ("KVG000", 2)
    assert "not valid in the declared encoding utf-8" in found["latin.py"][0][2]
    assert found["bad_cookie.py"][0][0] == "KVG000" and "encoding" in found["bad_cookie.py"][0][2]
    assert found["deep.py"][0][0] == "KVG000" and "nest" in found["deep.py"][0][2]
    assert found["dir.py"][0][0] == "KVG000" and "is a directory" in found["dir.py"][0][2]
    assert found["dangling.py"][0][0] == "KVG000" and "cannot read" in found["dangling.py"][0][2]
    assert "empty.py" not in found and "generated.py" not in found
    assert (tmp_path / "generated.py").stat().st_size > 1_000_000
    assert result.files_checked == 10


def test_unreadable_file_is_a_diagnostic(lint: Lint, tmp_path: Path) -> None:
    target = tmp_path / "secret.py"
    target.write_text(RACE)
    target.chmod(0)
    try:
        if os.access(target, os.R_OK):  # root reads anything: make reading fail another way
            target.chmod(0o644)
            target.unlink()
            target.mkdir()
            (target / "inner.py").write_text(RACE)
        result = lint({"ok.py": RACE})
    finally:
        if target.is_file():
            target.chmod(0o644)
    codes = {(f.path, f.code) for f in result.findings}
    assert ("ok.py", "KVG001") in codes
    assert ("secret.py", "KVG000") in codes


def test_very_deep_indentation_is_a_diagnostic(lint: Lint) -> None:
    nested = "".join("    " * i + "if stream:\n" for i in range(120))
    deep = nested + "    " * 120 + "stream.wait_stream(other)\n"
    result = lint({"indent.py": deep, "race.py": RACE})
    codes = sorted((f.path, f.code) for f in result.findings)
    assert codes == [("indent.py", "KVG000"), ("race.py", "KVG001")]
