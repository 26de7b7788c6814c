"""KVG000: a file kvguard could not read or parse."""

from __future__ import annotations

from collections.abc import Iterator

from kvguard.lint.findings import Finding, Span
from kvguard.lint.model import ProjectModel
from kvguard.lint.rule import Example, Expect, Rule, RulePage


class UnreadableFile(Rule):
    code = "KVG000"
    name = "unreadable-file"
    summary = "A file could not be read, decoded or parsed, so it was not checked"
    page = RulePage(
        flags=(
            "A file kvguard was asked to check but could not: a syntax error, bytes that are not "
            "valid in the file's declared encoding, nesting too deep to parse, a file that cannot "
            "be opened, or a directory named like a Python file."
        ),
        why=(
            "A file that is not checked can hide the very race kvguard exists to catch. The run "
            "goes on with every other file, but the exit status says something was missed."
        ),
        bad="def store(stream:\n    ...",
        good="def store(stream):\n    ...",
        fix="Fix the syntax or the encoding declaration, or exclude the file in [tool.kvguard].",
    )
    VALID = (Example("x = 1\n"), Example(""), Example("\ufeffx = torch.cuda.Stream()\n"))
    INVALID = (
        Example("def store(stream:\n    stream.wait_stream(other)\n", expect=(Expect(1, 10),)),
        Example("# -*- coding: ascii -*-\ns = 'caf\u00e9 stream'\n", expect=(Expect(2, 9),)),
    )

    def check(self, model: ProjectModel) -> Iterator[Finding]:
        for summary in model.files():
            for diagnostic in summary.diagnostics:
                span = Span(diagnostic.line, diagnostic.column, diagnostic.line, diagnostic.column)
                yield Finding(
                    summary.path, self.code, diagnostic.message, span, (diagnostic.line, diagnostic.line)
                )
