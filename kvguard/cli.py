"""The ``kvguard`` command line.

Exit status of ``kvguard check``: 0 no findings, 1 findings (unreadable files count), 2 a
usage or configuration error, a missing or malformed baseline, a path that does not exist, or
nothing to check (docs/adopting.md). ``--exit-zero`` reports findings with status 0.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from kvguard import __version__

if TYPE_CHECKING:
    from kvguard.lint.engine import CheckResult
    from kvguard.lint.findings import Finding

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class _UsageError(click.UsageError):
    exit_code = EXIT_ERROR


class _Error(click.ClickException):
    exit_code = EXIT_ERROR


def _fail(message: str) -> NoReturn:
    """A mistake in the command line: the message and a pointer to --help."""
    raise _UsageError(message)


def _error(message: str) -> NoReturn:
    """A problem with what the command line names (configuration, paths, files): the message."""
    raise _Error(message)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="kvguard")
def main() -> None:
    """Keep KV-cache offload copies ordered behind the compute stream."""


def _split(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Only these rule codes or prefixes (replaces the configured selection).",
)
@click.option(
    "--extend-select", multiple=True, metavar="CODES", help="Rule codes or prefixes to add to the selection."
)
@click.option("--ignore", multiple=True, metavar="CODES", help="Rule codes or prefixes to skip.")
@click.option(
    "--exclude",
    multiple=True,
    metavar="PATTERN",
    help="Extra exclude pattern (glob); adds to the configured ones.",
)
@click.option(
    "--force-exclude",
    is_flag=True,
    help="Apply excludes to paths given on the command line too (for pre-commit).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "sarif", "github"]),
    default="text",
    show_default=True,
)
@click.option(
    "--output",
    "output_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to FILE instead of standard output.",
)
@click.option(
    "--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (0: one per CPU)."
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the summary cache.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only: no source context, no summary.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "--include-uncertain",
    is_flag=True,
    help="Also report findings whose hazard the code does not establish, marked as uncertain.",
)
@click.option(
    "--fix", is_flag=True, help="Apply the fixes kvguard can make safely, then report what is left."
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print the fixes as a unified diff and change nothing (exit 1 if there is any).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read settings from this file instead of the nearest pyproject.toml.",
)
@click.option(
    "--stdin-filename", metavar="PATH", help="The name of the file read from standard input (path '-')."
)
@click.option(
    "--staged",
    is_flag=True,
    help="Check the Python files staged for commit, read from git (the pre-commit hook's way); "
    "with none staged, the whole project.",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Do not report the findings this baseline file records (overrides the configured one).",
)
@click.option("--no-baseline", is_flag=True, help="Report every finding, ignoring the configured baseline.")
@click.option(
    "--write-baseline",
    "new_baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Record the findings of this run in FILE (report nothing, exit 0); run it on the whole project.",
)
def check(
    paths: tuple[Path, ...],
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    exclude: tuple[str, ...],
    force_exclude: bool,
    output_format: str,
    output_file: Path | None,
    jobs: int,
    no_cache: bool,
    quiet: bool,
    exit_zero: bool,
    include_uncertain: bool,
    fix: bool,
    show_diff: bool,
    config_file: Path | None,
    stdin_filename: str | None,
    staged: bool,
    baseline_file: Path | None,
    no_baseline: bool,
    new_baseline: Path | None,
) -> None:
    """Check PATHS (files or directories; default '.') for unordered KV copies.

    Exit status: 0 no findings, 1 findings, 2 a usage or configuration error, a path that does
    not exist, or nothing to check."""
    from dataclasses import replace

    from kvguard.lint.baseline import BaselineError, read_baseline
    from kvguard.lint.config import ConfigError, check_selector, enabled_codes, load_settings
    from kvguard.lint.engine import StdinSource, run_check
    from kvguard.lint.files import PathError, is_excluded
    from kvguard.lint.progress import ProgressLine
    from kvguard.lint.reporters import Report, render
    from lint_rules import RULES, default_states

    known = tuple(rule.code for rule in RULES)
    if staged and paths:
        _fail("--staged reads the files to check from git's index: give no paths with it")
    targets = _staged_targets(quiet) if staged else list(paths) or [Path(".")]
    reading_stdin = targets == [Path("-")]
    if not reading_stdin and Path("-") in targets:
        _fail("'-' (standard input) cannot be combined with other paths")
    if config_file is not None and not config_file.is_file():
        _fail(f"--config {config_file}: no such file")
    start = (
        Path(stdin_filename)
        if reading_stdin and stdin_filename
        else (Path.cwd() if reading_stdin else targets[0])
    )
    try:
        settings = load_settings(config_file, start.absolute(), known)
        for option, values in (
            ("--select", select),
            ("--extend-select", extend_select),
            ("--ignore", ignore),
        ):
            for selector in _split(values):
                check_selector(selector, known, option)
    except ConfigError as error:
        _error(str(error))
    settings = replace(
        settings,
        select=_split(select) or settings.select,
        extend_select=settings.extend_select + _split(extend_select),
        ignore=settings.ignore + _split(ignore),
        extend_exclude=settings.extend_exclude + tuple(exclude),
        force_exclude=settings.force_exclude or force_exclude,
        include_uncertain=settings.include_uncertain or include_uncertain,
    )
    codes = enabled_codes(settings, default_states())
    rules = [rule() for rule in RULES if rule.code in codes]

    if reading_stdin and (fix or show_diff):
        _fail("--fix and --diff need files, not standard input")
    if fix and show_diff:
        _fail("--fix writes the fixes and --diff only shows them: give one of the two")
    if new_baseline is not None and (fix or show_diff or reading_stdin):
        _fail("--write-baseline records the findings of files as they are: not with --fix, --diff or '-'")
    if no_baseline and baseline_file is not None:
        _fail("--baseline names a baseline and --no-baseline ignores it: give one of the two")
    # Writing a baseline records every finding, whatever an earlier baseline holds.
    baseline_path = None if no_baseline or new_baseline is not None else baseline_file or settings.baseline
    try:
        accepted = read_baseline(baseline_path) if baseline_path is not None else frozenset()
    except BaselineError as error:
        _error(str(error))
    stdin = None
    if reading_stdin:
        name = stdin_filename or "-"
        if (
            stdin_filename
            and settings.force_exclude
            and is_excluded(Path(name), settings.root, settings.all_excludes)
        ):
            return
        stdin = StdinSource(name, sys.stdin.buffer.read())
    progress = ProgressLine(sys.stderr) if sys.stderr.isatty() and not quiet else None

    def checked() -> CheckResult:
        try:
            result = run_check(
                targets,
                settings,
                rules,
                frozenset(known),
                jobs=jobs,
                use_cache=not no_cache,
                stdin=stdin,
                progress=progress,
                unselected=[rule() for rule in RULES if rule.code not in codes],
                baseline=accepted,
            )
        except PathError as error:
            _error(str(error))
        finally:
            if progress is not None:
                progress.clear()
        for warning in result.warnings:
            click.echo(f"kvguard: warning: {warning}", err=True)
        return result

    result = checked()
    # Nothing found to check is a mistake (a wrong path, a tree without Python files), not a
    # pass; only files pre-commit hands over that the configuration excludes are no work.
    every_path_excluded = settings.force_exclude and all(
        is_excluded(target, settings.root, settings.all_excludes) for target in targets
    )
    if stdin is None and result.files_checked == 0 and not every_path_excluded:
        named = ", ".join(str(target) for target in targets)
        _error(f"no Python files to check in {named}: nothing was checked")
    if new_baseline is not None:
        _write_baseline(new_baseline, result)
        return
    if show_diff or fix:
        from kvguard.lint.fixes import unified_diff  # libcst: only for fixes

        changes = _fixed_sources(result.findings)
        if show_diff:
            click.echo("".join(unified_diff(path, *change) for path, change in changes.items()), nl=False)
            sys.exit(EXIT_FINDINGS if changes and not exit_zero else 0)
        written = set()
        for path, (_, after) in changes.items():
            try:
                # newline="": line endings as the file has them (CRLF stays CRLF).
                with open(path, "w", encoding="utf-8", newline="") as stream:
                    stream.write(after)
                written.add(path)
            except OSError as error:
                click.echo(f"kvguard: {path}: cannot write the fix: {error.strerror}", err=True)
        fixed = sum(
            1 for f in result.findings if f.fix is not None and all(e.path in written for e in f.fix.edits)
        )
        if not quiet:
            click.echo(f"kvguard: fixed {fixed} finding(s) in {len(written)} file(s)", err=True)
        result = checked()

    @lru_cache(maxsize=256)
    def source_lines(path: str) -> list[str]:
        if path not in result.read_paths:
            return []
        if stdin is not None and path == stdin.display_path:
            return stdin.data.decode("utf-8", "replace").splitlines()
        try:
            return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []

    report = Report(result, [type(rule) for rule in rules], source_lines, quiet=quiet)
    text = render(report, output_format)
    if output_file is not None:
        try:
            output_file.write_text(text, encoding="utf-8")
        except OSError as error:
            _error(f"--output {output_file}: {error.strerror}")
    else:
        click.echo(text, nl=False)
    if result.findings and not exit_zero:
        sys.exit(EXIT_FINDINGS)


def _staged_targets(quiet: bool) -> list[Path]:
    """What a commit would change, for the pre-commit hook (which passes no file names, so
    that however long the list, one run analyses the project once). With no Python file staged
    (``pre-commit run --all-files`` on a clean index, a CI job), the whole work tree."""
    from kvguard.lint.files import PathError, staged_python_files

    try:
        top, files = staged_python_files(Path.cwd())
    except PathError as error:
        _error(str(error))
    if not files and not quiet:
        click.echo("kvguard: no Python file is staged: checking the whole work tree", err=True)
    return files or [top]


def _write_baseline(path: Path, result: CheckResult) -> None:
    from kvguard.lint.baseline import BaselineError, baseline_entries, write_baseline
    from kvguard.lint.engine import checked_text

    if not result.whole_project:
        click.echo(
            "kvguard: warning: the baseline holds only the findings that touch the paths given; "
            "give the project's root (or no path) to record them all",
            err=True,
        )
    entries = baseline_entries(
        result.findings, result.root, lambda shown: checked_text(shown, result.read_paths, None)
    )
    try:
        write_baseline(path, entries)
    except BaselineError as error:
        _error(str(error))
    count = len(entries)
    click.echo(
        f"kvguard: wrote {count} finding{'s' if count != 1 else ''} to the baseline {path} "
        f"({result.files_checked} files checked)",
        err=True,
    )


def _fixed_sources(findings: list[Finding]) -> dict[str, tuple[str, str]]:
    """path -> (source, fixed source) for every file a fix changes; a file whose fixes cannot
    be applied is named on standard error and left alone."""
    import libcst as cst

    from kvguard.lint.fixes import FixError, apply_edits, fixes_by_path

    changes: dict[str, tuple[str, str]] = {}
    for path, edits in fixes_by_path(findings).items():
        try:
            with open(path, encoding="utf-8", newline="") as stream:
                before = stream.read()
            after = apply_edits(before, edits)
        except (OSError, UnicodeDecodeError, FixError, cst.ParserSyntaxError) as error:
            click.echo(f"kvguard: {path}: fix not applied: {error}", err=True)
            continue
        if after != before:
            changes[path] = (before, after)
    return changes


@main.command()
def rules() -> None:
    """List every rule: code, name, default state and summary."""
    from lint_rules import RULES

    width = max(len(rule.name) for rule in RULES)
    for rule in RULES:
        state = "on " if rule.default_enabled else "off"
        click.echo(f"{rule.code}  {rule.name:<{width}}  {state}  {rule.summary}")


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Show the page of rule CODE: what it flags, why, examples, the fix."""
    from lint_rules import RULES, rule_for

    rule = rule_for(code)
    if rule is None:
        known = ", ".join(r.code for r in RULES)
        _fail(f"unknown rule code '{code}' (known: {known})")
        return
    page = rule.page
    width = min(88, max(40, shutil.get_terminal_size((88, 24)).columns))

    def paragraph(text: str) -> str:
        return textwrap.fill(text, width=width)

    sections = [
        f"{rule.code} ({rule.name})",
        "",
        paragraph(rule.summary + "."),
        "",
        "What it flags",
        paragraph(page.flags),
        "",
        "Why it matters",
        paragraph(page.why),
        "",
        "Example",
        textwrap.indent(page.bad.rstrip("\n"), "    "),
        "",
        "Use instead",
        textwrap.indent(page.good.rstrip("\n"), "    "),
        "",
        "How to fix",
        paragraph(page.fix),
        "",
        f"Default: {'on' if rule.default_enabled else 'off'}. "
        + (
            f'Turn it off with `ignore = ["{rule.code}"]` in [tool.kvguard] or `--ignore {rule.code}`.'
            if rule.judges_suppressions
            else f"Suppress one statement with `# kvguard: ignore[{rule.code}] <reason>`."
        ),
    ]
    if page.references:
        sections += ["", "References", *(f"  {ref}" for ref in page.references)]
    click.echo("\n".join(sections))


if __name__ == "__main__":
    main()
