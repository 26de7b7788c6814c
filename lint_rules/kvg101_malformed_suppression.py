"""KVG101: a comment that starts like a kvguard suppression but is none of the documented forms."""

from __future__ import annotations

from collections.abc import Iterator

from kvguard.lint.findings import Finding, Span
from kvguard.lint.model import ProjectModel
from kvguard.lint.rule import Example, Expect, Rule, RulePage

_FORMS = (
    "`# kvguard: ignore[KVG001] reason`, `# kvguard: ignore`, `# kvguard: ignore-file[KVG001]`, "
    "`# kvguard: ignore-file` and `# noqa: KVG001`"
)


class MalformedSuppression(Rule):
    code = "KVG101"
    name = "malformed-suppression"
    summary = "A comment that starts like a kvguard suppression is none of the documented forms"
    page = RulePage(
        flags=(
            "A comment that starts like a kvguard directive, `# kvguard:` or `# kvguard ignore` "
            "without the colon, but is not exactly one of the documented forms: " + _FORMS + ". "
            "Codes go in square brackets right after `ignore` or `ignore-file`, separated by commas; "
            "a reason follows after a space and may not begin with a bracket, a parenthesis, `=`, "
            "`:`, `,` or a KVG code. A `# noqa` without its colon that names a KVG code is flagged "
            "too. Prose that mentions kvguard without a colon or an `ignore` word is not a directive."
        ),
        why=(
            "A misspelt suppression must not suppress more than it says, nor silently suppress "
            "nothing. Read loosely, `# kvguard: ignore-files[KVG002]` would silence every finding "
            "in the file and `# kvguard: ignore [KVG002]` every code on its line. kvguard reads "
            "such a comment as no suppression at all, so the finding it was meant for is still "
            "reported, and this rule says why."
        ),
        bad="cpu.copy_(gpu, non_blocking=True)  # kvguard: ignore [KVG001] ordered by the caller\n",
        good="cpu.copy_(gpu, non_blocking=True)  # kvguard: ignore[KVG001] ordered by the caller\n",
        fix=(
            "Write the form the finding suggests (its codes, in brackets, right after `ignore` or "
            "`ignore-file`). There is no automatic fix: correcting the comment makes it suppress "
            "findings, which is a reviewer's decision."
        ),
    )
    VALID = (
        Example("x = 1  # kvguard: ignore[KVG001] ordered by the caller's event\n"),
        Example("x = 1  # kvguard: ignore[KVG001, KVG004]\n"),
        Example("x = 1  # kvguard: ignore\n", note="bare: every code"),
        Example("x = 1  # kvguard: ignore the caller waits on the event\n", note="bare, with a reason"),
        Example("# kvguard: ignore-file[KVG001]\nx = 1\n"),
        Example("x = 1  # noqa: E501, KVG001\n"),
        Example("x = 1  # noqa\n", note="a bare noqa is other tools' business"),
        Example("x = 1  # noqa: E501  # kvguard: ignore[KVG004]\n", note="two directives in one comment"),
        Example("# streams are ordered for kvguard by the caller\nx = 1\n", note="prose naming kvguard"),
        Example('x = "# kvguard: ignore-files[KVG002]"\n', note="inside a string"),
    )
    INVALID = (
        Example("x = 1  # kvguard: ignore-files[KVG002]\n", expect=(Expect(1, 8),), note="ignore-files"),
        Example("x = 1  # kvguard: ignore_file[KVG002]\n", expect=(Expect(1, 8),), note="ignore_file"),
        Example(
            "x = 1  # kvguard: ignore [KVG002]\n", expect=(Expect(1, 8),), note="space before the bracket"
        ),
        Example("x = 1  # kvguard: ignore(KVG002)\n", expect=(Expect(1, 8),), note="parentheses"),
        Example("x = 1  # kvguard: ignore=KVG001\n", expect=(Expect(1, 8),), note="equals sign"),
        Example("x = 1  # kvguard: ignore KVG001\n", expect=(Expect(1, 8),), note="code without brackets"),
        Example("x = 1  # kvguard: ignore[]\n", expect=(Expect(1, 8),), note="empty brackets"),
        Example("x = 1  # kvguard: ignore[KVG001,]\n", expect=(Expect(1, 8),), note="trailing comma"),
        Example("x = 1  # kvguard: ignored, see PR 12\n", expect=(Expect(1, 8),), note="ignored"),
        Example("x = 1  # kvguard ignore[KVG001]\n", expect=(Expect(1, 8),), note="no colon"),
        Example("x = 1  # kvguard: disable[KVG001]\n", expect=(Expect(1, 8),), note="another tool's word"),
        Example("x = 1  # noqa KVG001\n", expect=(Expect(1, 8),), note="noqa without its colon"),
        Example(
            "x = 1  # noqa: E501  # kvguard: ignore [KVG004]\n",
            expect=(Expect(1, 22),),
            note="the kvguard part of a shared comment",
        ),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        for path, malformed in model.malformed_suppressions():
            if malformed.meant:
                advice = f"write `{malformed.meant}`"
            elif "[]" in malformed.written.replace(" ", ""):
                advice = "name the codes in the brackets, or write a bare `# kvguard: ignore` for every code"
            else:
                advice = f"the forms are {_FORMS}"
            span = Span(malformed.line, malformed.column, malformed.line, malformed.column)
            yield Finding(
                path,
                self.code,
                f"`{_shortened(malformed.written)}` is not a kvguard suppression and suppresses nothing: "
                + advice,
                span,
                (malformed.line, malformed.line),
                fix_hint="correct the comment; see `kvguard explain KVG101` for the forms",
            )


def _shortened(written: str, limit: int = 60) -> str:
    return written if len(written) <= limit else written[: limit - 3].rstrip() + "..."
