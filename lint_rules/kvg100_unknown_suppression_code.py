"""KVG100: a suppression comment names a code kvguard does not have."""

from __future__ import annotations

from collections.abc import Iterator

from kvguard.lint.findings import Finding, Span
from kvguard.lint.model import ProjectModel
from kvguard.lint.rule import Example, Expect, Rule, RulePage


class UnknownSuppressionCode(Rule):
    code = "KVG100"
    name = "unknown-suppression-code"
    summary = "A kvguard suppression comment names a rule code that does not exist"
    page = RulePage(
        flags=(
            "`# kvguard: ignore[...]`, `# kvguard: ignore-file[...]` or `# noqa: KVG...` comments "
            "naming a code no kvguard rule has (a typo such as KVG01, or a retired code)."
        ),
        why=(
            "A misspelt suppression suppresses nothing, and the reader believes it does. Codes of "
            "other tools in a `# noqa:` comment (E501, F401) are left alone."
        ),
        bad="copy_blocks(stream)  # kvguard: ignore[KVG01]",
        good="copy_blocks(stream)  # kvguard: ignore[KVG001] ordered by the caller's event",
        fix="Correct the code (see `kvguard rules`) or remove the comment.",
    )
    VALID = (
        Example("x = 1  # noqa: E501\n"),
        Example("x = 1  # kvguard: ignore[KVG001]\n"),
        Example("x = 1  # noqa: KVG002, F401\n"),
    )
    INVALID = (
        Example("x = 1  # kvguard: ignore[KVG01]\n", expect=(Expect(1, 8),)),
        Example("x = 1  # noqa: KVG999\n", expect=(Expect(1, 8),)),
        Example("# kvguard: ignore-file[NOPE1]\n", expect=(Expect(1, 1),)),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        for path, suppression, code in model.unknown_suppression_codes():
            span = Span(suppression.line, suppression.column, suppression.line, suppression.column)
            yield Finding(
                path,
                self.code,
                f"suppression names unknown rule code '{code}' (see `kvguard rules`)",
                span,
                (suppression.line, suppression.line),
            )
