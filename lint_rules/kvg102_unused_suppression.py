"""KVG102: a suppression comment that covers no finding."""

from __future__ import annotations

from collections.abc import Iterator

from kvguard.lint.findings import Finding, Span
from kvguard.lint.model import ProjectModel
from kvguard.lint.rule import Example, Expect, Rule, RulePage

_RACE = (
    "import torch\n\n"
    "def store(gpu, stream):\n"
    "    cpu = torch.empty(gpu.shape, pin_memory=True)\n"
    "    with torch.cuda.stream(stream):\n"
    "        cpu.copy_(gpu, non_blocking=True)  {COMMENT}\n"
)


class UnusedSuppression(Rule):
    code = "KVG102"
    name = "unused-suppression"
    summary = "A kvguard suppression comment covers no finding"
    judges_suppressions = True
    page = RulePage(
        flags=(
            "A `# kvguard: ignore[...]` or `# noqa: KVG...` comment naming a code that no finding "
            "on its statement has, a bare `# kvguard: ignore` on a statement with no finding, and "
            "a `# kvguard: ignore-file[...]` naming a code no finding in the file has (ruff's "
            "RUF100). A comment is used when it covers a finding of any kvguard rule: one that "
            "`--select` or `ignore` leaves out, an uncertain one that is hidden by default, or one "
            "in a file that `per-file-ignores` covers. Codes kvguard does not have are KVG100's; "
            "files kvguard could not read (KVG000) are not judged."
        ),
        why=(
            "A suppression outlives the code it was written for: after a fix, a refactoring or a "
            "change in the analysis it silences nothing, yet reads as a claim that the statement "
            "is hazardous and reviewed, and it will silence the next real finding on that line "
            "without anyone deciding so."
        ),
        bad=(
            "stream.wait_stream(torch.cuda.current_stream())\n"
            "with torch.cuda.stream(stream):\n"
            "    cpu.copy_(gpu, non_blocking=True)  # kvguard: ignore[KVG001] fixed since\n"
        ),
        good=(
            "stream.wait_stream(torch.cuda.current_stream())\n"
            "with torch.cuda.stream(stream):\n"
            "    cpu.copy_(gpu, non_blocking=True)\n"
        ),
        fix=(
            "Remove the comment, or the codes it no longer needs. To keep unused suppressions, "
            'turn the rule off: `ignore = ["KVG102"]` in `[tool.kvguard]` or `--ignore KVG102`. '
            "Its findings are not themselves silenced by suppression comments, only by the "
            "configuration (`ignore`, `per-file-ignores`) and the baseline."
        ),
    )
    VALID = (
        Example(_RACE.replace("{COMMENT}", "# kvguard: ignore[KVG001] ordered by the caller"), note="used"),
        Example(_RACE.replace("{COMMENT}", "# kvguard: ignore"), note="bare, used"),
        Example(_RACE.replace("{COMMENT}", "# noqa: KVG001, E501"), note="noqa, used"),
        Example(
            "# kvguard: ignore-file[KVG001]\n" + _RACE.replace("  {COMMENT}", ""), note="file level, used"
        ),
        Example(
            "import torch\n\n"
            "def store(a, b, stream):\n"
            "    with torch.cuda.stream(stream):\n"
            "        a.copy_(b, non_blocking=True)  # kvguard: ignore[KVG001]\n",
            note="used by an uncertain finding, hidden by default",
        ),
        Example("x = 1  # noqa: E501\n", note="other tools' codes"),
        Example("x = 1  # kvguard: ignore[KVG999]\n", note="an unknown code is KVG100's"),
    )
    INVALID = (
        Example("x = 1  # kvguard: ignore[KVG001]\n", expect=(Expect(1, 8),)),
        Example("x = 1  # kvguard: ignore\n", expect=(Expect(1, 8),), note="bare"),
        Example("x = 1  # noqa: E501, KVG004\n", expect=(Expect(1, 8),), note="noqa"),
        Example(
            "# kvguard: ignore-file[KVG003]\n" + _RACE.replace("  {COMMENT}", ""),
            expect=(Expect(1, 1),),
            note="file level, no finding of that code in the file",
        ),
        Example(
            _RACE.replace("{COMMENT}", "# kvguard: ignore[KVG001, KVG004]"),
            expect=(Expect(6, 44),),
            note="one of two codes used",
        ),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        for path, suppression, unused in model.unused_suppressions():
            where = "in this file" if suppression.file_level else "on this statement"
            if unused:
                named = ", ".join(unused)
                message = f"unused suppression: no {named} finding {where}"
                remedy = f"remove {named} from the comment" if len(unused) < len(suppression.codes) else ""
            else:
                message = f"unused suppression: no finding {where}"
                remedy = ""
            span = Span(suppression.line, suppression.column, suppression.line, suppression.column)
            yield Finding(
                path,
                self.code,
                message,
                span,
                (suppression.line, suppression.line),
                fix_hint=(remedy or "remove the comment")
                + " (findings hidden by default or by the selection count as covered)",
            )
