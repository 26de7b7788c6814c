"""Applying fixes to source text.

Each edit names the node it changes by its position; the change is made on a libcst tree,
so everything else in the file (comments, spacing, quotes) comes back byte for byte.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from kvguard.lint.findings import Edit, Finding, Span


class FixError(Exception):
    """An edit whose node is no longer where the finding said (the file changed meanwhile)."""


def apply_edits(source: str, edits: Sequence[Edit]) -> str:
    """The source with every edit made (raises FixError where an edit's node is not found)."""
    if not edits:
        return source
    tree = cst.parse_module(source)
    # libcst drops whitespace-only lines at the very end of a file; anything else it does not
    # reproduce exactly is a reason not to touch the file.
    unchanged = tree.code
    if not source.startswith(unchanged) or source[len(unchanged) :].strip():
        raise FixError("libcst does not reproduce this file byte for byte")
    wrapper = MetadataWrapper(tree)
    transformer = _Editor(edits, wrapper.resolve(PositionProvider))
    module = wrapper.visit(transformer)
    # An import the module already has, or comments with nothing to rewrite, need no node.
    missing = [edit for edit in transformer.pending if edit.kind not in ("import", "comments")]
    if missing:
        first = missing[0]
        raise FixError(f"no node at line {first.span.line}, column {first.span.column} for the fix")
    for edit in edits:
        if edit.kind == "import" and not _imports(module, edit.text):
            module = _add_import(module, edit.text)
    return module.code + source[len(unchanged) :]


def fixes_by_path(findings: Iterable[Finding]) -> dict[str, list[Edit]]:
    by_path: dict[str, list[Edit]] = {}
    for finding in findings:
        if finding.fix is None:
            continue
        for edit in finding.fix.edits:
            edits = by_path.setdefault(edit.path, [])
            if edit not in edits:
                edits.append(edit)
    return by_path


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )


def _matches(position: object, span: Span) -> bool:
    start, end = position.start, position.end  # type: ignore[attr-defined]
    return (start.line, start.column + 1, end.line, end.column + 1) == (
        span.line,
        span.column,
        span.end_line,
        span.end_column,
    )


class _Editor(cst.CSTTransformer):
    def __init__(self, edits: Sequence[Edit], positions: object) -> None:
        super().__init__()
        self.pending = list(edits)
        self._positions = positions

    def _take(self, node: cst.CSTNode, kinds: tuple[str, ...]) -> list[Edit]:
        position = self._positions.get(node)  # type: ignore[attr-defined]
        if position is None:
            return []
        taken = [e for e in self.pending if e.kind in kinds and _matches(position, e.span)]
        for edit in taken:
            self.pending.remove(edit)
        return taken

    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode:
        result: cst.CSTNode = updated_node
        if isinstance(original_node, cst.BaseExpression):
            for edit in self._take(original_node, ("replace",)):
                result = cst.parse_expression(edit.text).with_changes(
                    lpar=getattr(updated_node, "lpar", ()), rpar=getattr(updated_node, "rpar", ())
                )
        if isinstance(original_node, cst.SimpleStatementLine) and isinstance(result, cst.SimpleStatementLine):
            result = self._reword_comments(original_node, result)
        if isinstance(original_node, (cst.SimpleStatementLine, cst.With)):
            inserted = self._take(original_node, ("insert-before",))
            if inserted:
                statements = [cst.parse_statement(edit.text) for edit in inserted]
                # Comments above the statement stay above it: the new code goes between.
                lead = statements[0].with_changes(leading_lines=result.leading_lines)  # type: ignore[attr-defined]
                statements[0] = lead
                kept = result.with_changes(leading_lines=())
                return cst.FlattenSentinel([*statements, kept])  # type: ignore[return-value]
        if isinstance(original_node, cst.Call) and isinstance(result, cst.Call):
            for edit in self._take(original_node, ("keyword",)):
                name, _, value = edit.text.partition("=")
                if not any(arg.keyword is not None and arg.keyword.value == name for arg in result.args):
                    keyword = cst.Arg(
                        value=cst.parse_expression(value),
                        keyword=cst.Name(name),
                        equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""),
                        ),
                    )
                    result = result.with_changes(args=[*_with_comma(result.args), keyword])
        return result

    def _reword_comments(self, original: cst.CSTNode, statement: cst.SimpleStatementLine) -> cst.CSTNode:
        """Apply the "comments" edits aimed inside this statement to its comments and to the
        comment block right above it."""
        position = self._positions.get(original)  # type: ignore[attr-defined]
        if position is None:
            return statement
        edits = [
            e
            for e in self.pending
            if e.kind == "comments" and position.start.line <= e.span.line <= position.end.line
        ]
        if not edits:
            return statement
        for edit in edits:
            self.pending.remove(edit)
        rewrites = [rewrite for edit in edits for rewrite in edit.rewrites]
        rewriter = _CommentRewriter(rewrites)
        leading = list(statement.leading_lines)
        index = len(leading)
        while index > 0 and leading[index - 1].comment is not None:  # the block just above
            index -= 1
            line = leading[index]
            assert line.comment is not None
            leading[index] = line.with_changes(comment=_reworded(line.comment, rewrites))
        return statement.with_changes(
            leading_lines=leading,
            body=[small.visit(rewriter) for small in statement.body],
            trailing_whitespace=statement.trailing_whitespace.visit(rewriter),
        )


class _CommentRewriter(cst.CSTTransformer):
    def __init__(self, rewrites: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self._rewrites = rewrites

    def leave_Comment(self, original_node: cst.Comment, updated_node: cst.Comment) -> cst.Comment:
        return _reworded(updated_node, self._rewrites)


def _reworded(comment: cst.Comment, rewrites: Sequence[tuple[str, str]]) -> cst.Comment:
    value = comment.value
    for pattern, replacement in rewrites:
        value = re.sub(pattern, replacement, value)
    return comment.with_changes(value=value)


def _with_comma(args: Sequence[cst.Arg]) -> list[cst.Arg]:
    """Arguments with a comma after the last, so one more can follow it."""
    if not args:
        return []
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        return list(args)
    return [*args[:-1], last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]


def _imports(module: cst.Module, name: str) -> bool:
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import) and any(
                    alias.asname is None and _dotted(alias.name) == name for alias in small.names
                ):
                    return True
    return False


def _add_import(module: cst.Module, name: str) -> cst.Module:
    """``import name`` after the module's docstring and ``__future__`` imports."""
    body = list(module.body)
    index = 0
    while index < len(body):
        statement = body[index]
        first = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        docstring = isinstance(first, cst.Expr) and isinstance(first.value, cst.SimpleString) and index == 0
        future = isinstance(first, cst.ImportFrom) and _dotted(first.module) == "__future__"
        if not (docstring or future):
            break
        index += 1
    body.insert(index, cst.parse_statement(f"import {name}\n"))
    return module.with_changes(body=body)


def _dotted(node: cst.BaseExpression | None) -> str:
    return cst.Module([]).code_for_node(node) if node is not None else ""
