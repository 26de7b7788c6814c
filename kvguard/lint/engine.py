"""One check run: find files, summarize each once (cached, in parallel), run the rules,
apply suppressions, return findings in a deterministic order."""

from __future__ import annotations

import contextlib
import functools
import gc
import multiprocessing
import os
import subprocess
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path

from kvguard.lint.api import passes_gate
from kvguard.lint.baseline import fingerprinted, project_path
from kvguard.lint.cache import CacheUnavailable, SummaryCache, code_fingerprint
from kvguard.lint.config import Settings
from kvguard.lint.facts import Diagnostic, FileSummary
from kvguard.lint.files import Candidate, discover
from kvguard.lint.findings import Finding
from kvguard.lint.gitcmd import git
from kvguard.lint.ir import ModuleCode
from kvguard.lint.model import ProjectModel
from kvguard.lint.pathstate import ModuleNames
from kvguard.lint.progress import Progress
from kvguard.lint.rule import Rule
from kvguard.lint.source import decode, summarize
from kvguard.lint.suppressions import apply_suppressions, suppression_uses

# Below this many files to parse, a process pool costs more than it saves.
_PARALLEL_THRESHOLD = 16
# How many imports deep the definitions a parsed file uses are followed.
_DEFINITION_DEPTH = 3

# A run makes millions of small objects (parse trees, lowered code, interpreter values) and
# few cycles; at CPython's default thresholds the cyclic collector runs every 700 allocations.
# Raised, a cold run on vLLM is 5% and a changed-file run 11% faster, for 3% more peak memory
# (benchmarks/lint_speed.py, benchmarks/results/lint-speed.json).
_GC_THRESHOLDS = (200_000, 30, 30)


@contextlib.contextmanager
def _rare_collections() -> Iterator[None]:
    """Collect cycles rarely for the run, then restore the caller's thresholds."""
    before = gc.get_threshold()
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _worker_setup() -> None:
    """Parse workers collect as rarely (a forked worker inherits it; a spawned one does not)."""
    gc.set_threshold(*_GC_THRESHOLDS)


@dataclass
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    # Other files of the project the analysis read to follow paths through them (their own
    # findings are reported only where a path touches a checked file).
    files_for_context: int = 0
    suppressed: int = 0
    # Findings left out because the code does not establish their hazard.
    uncertain: int = 0
    # One line each, for standard error: what the run could not do (use its cache, say).
    warnings: list[str] = field(default_factory=list)
    # Files the run read: a report quotes source lines from these only (not from a file it
    # refused to read, such as a link out of the project).
    read_paths: frozenset[str] = frozenset()
    # The project the run checked (fingerprints and SARIF name files relative to it), and
    # whether the paths given were all of it (or only some files, with the rest for context).
    root: Path = Path(".")
    whole_project: bool = True
    # Findings left out because the baseline records them.
    baselined: int = 0


@dataclass(frozen=True)
class StdinSource:
    display_path: str
    data: bytes


def display_path(path: Path) -> str:
    """Relative to the working directory when under it, as editors and CI annotations expect."""
    text = os.fspath(path)
    if not os.path.isabs(text):
        # The common case (found by walking a directory given relatively), without a getcwd.
        normal = os.path.normpath(text)
        if normal != os.curdir and normal != os.pardir and not normal.startswith(os.pardir + os.sep):
            return normal.replace(os.sep, "/")
    absolute = os.path.abspath(text)
    here = os.path.join(os.getcwd(), "")  # with its trailing separator
    if absolute.startswith(here):
        return Path(absolute[len(here) :]).as_posix()
    return Path(absolute).as_posix()


def run_check(
    paths: Sequence[Path],
    settings: Settings,
    rules: Sequence[Rule],
    known_codes: frozenset[str],
    *,
    jobs: int = 0,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
    progress: Progress | None = None,
    unselected: Sequence[Rule] = (),
    baseline: frozenset[str] = frozenset(),
) -> CheckResult:
    """Check ``paths`` with ``rules``. ``unselected``: the rules not selected, whose findings
    are not reported but tell which suppression comments are used (for the rules that judge
    them). ``baseline``: fingerprints of findings not to report."""
    with _rare_collections():
        return _run_check(
            paths, settings, rules, known_codes, jobs, use_cache, stdin, progress, unselected, baseline
        )


def _run_check(
    paths: Sequence[Path],
    settings: Settings,
    rules: Sequence[Rule],
    known_codes: frozenset[str],
    jobs: int,
    use_cache: bool,
    stdin: StdinSource | None,
    progress: Progress | None,
    unselected: Sequence[Rule],
    baseline: frozenset[str],
) -> CheckResult:
    if stdin is not None:
        root = cache_root = settings.root
    else:
        root, in_project = project_root(settings, paths)
        # Like ruff's: in a project (configuration or git), its root; otherwise (an installed
        # package, say) the working directory, so that nothing is written into site-packages.
        cache_root = root if in_project else Path.cwd()

    # Inside the run files go by their paths from the project root (so that cache entries and
    # results hold from any working directory); findings are shown from the working directory.
    def named(path: Path | str) -> str:
        return project_path(os.fspath(path), root)

    stdin_name = named(stdin.display_path) if stdin is not None else ""
    warnings: list[str] = []
    cache = None
    if use_cache and stdin is None:
        try:
            cache = SummaryCache.open(cache_root, settings.fingerprint())
        except CacheUnavailable as error:
            warnings.append(str(error))
    touched: Callable[[Finding], bool] | None = None  # None: the whole project was given
    sources: dict[str, tuple[Path, frozenset[str], frozenset[str]]] = {}
    read: set[str] = set()
    if stdin is not None:
        summaries = [summarize(stdin_name, stdin.data)]
        checked, context = 1, 0
    else:
        targets = []
        for candidate in discover(list(paths), settings, root):
            if candidate.skipped:
                warnings.append(f"{display_path(candidate.path)} {candidate.skipped}")
            else:
                targets.append(candidate)
        candidates, touched = _with_context(targets, paths, root, settings)
        summaries = _summaries(candidates, named, cache, jobs or os.cpu_count() or 1, progress, sources, read)
        checked, context = len(targets), len(candidates) - len(targets)
    earlier = cache.analysis() if cache is not None else None

    def load_code(key: str) -> ModuleCode | None:
        """A file's lowered code from the cache, or read again if the cache lost it."""
        code = cache.code(key) if cache is not None else None
        if code is None and key in sources:
            path, callees, definitions = sources[key]
            with contextlib.suppress(OSError):
                again = summarize(named(path), path.read_bytes(), callees, definitions)
                code = again.code
                if cache is not None and code is not None:
                    cache.put(key, again)
        return code

    inner_stdin = StdinSource(stdin_name, stdin.data) if stdin is not None else None
    if inner_stdin is not None:
        read.add(stdin_name)

    def read_text(path: str) -> str | None:
        return checked_text(path, read, inner_stdin, root)

    model = ProjectModel(
        summaries,
        known_codes,
        load_code,
        earlier,
        settings.analysis,
        analysis_fingerprint(settings),
        os.fspath(root),
    )
    judges = [rule for rule in rules if rule.judges_suppressions]
    judged_codes = {rule.code for rule in judges}
    analysed = sum(1 for summary in summaries if summary.parsed)
    with progress.phase(f"analysing {analysed:,} files") if progress else contextlib.nullcontext():
        # Fingerprints are taken before any filter of this run (files given, comments,
        # uncertain), so that a finding's occurrence index does not depend on them.
        findings = fingerprinted(
            [finding for rule in rules if not rule.judges_suppressions for finding in rule.check(model)],
            read_text,
        )
        if judges:
            # A comment is used if it covers a finding of any rule: whether a rule is selected,
            # a finding uncertain or its file per-file-ignored is a setting of this run, and the
            # comment stays right under every setting.
            others = [f for rule in unselected if not rule.judges_suppressions for f in rule.check(model)]
            model.suppression_uses = suppression_uses(findings + others, summaries)
    if model.analysed:
        for failure in model.analysis.failed[:5]:
            warnings.append(f"internal error, paths through it not checked (please report): {failure}")
    if cache is not None:
        cache.save()
        if model.analysed or model.reused_after_edits:
            cache.put_analysis(model.analysis)
    findings += fingerprinted([f for rule in judges for f in rule.check(model)], read_text)
    reported = [f for f in findings if touched is None or touched(f)]
    kept, suppressed = apply_suppressions(
        [f for f in reported if f.code not in judged_codes], summaries, settings
    )
    # Findings about suppression comments are not themselves silenced by comments.
    kept += apply_suppressions(
        [f for f in reported if f.code in judged_codes], summaries, settings, comments=False
    )[0]
    uncertain = 0 if settings.include_uncertain else sum(1 for f in kept if f.uncertain)
    if not settings.include_uncertain:
        kept = [finding for finding in kept if not finding.uncertain]
    baselined = sum(1 for finding in kept if finding.fingerprint in baseline)
    kept = [finding for finding in kept if finding.fingerprint not in baseline]

    @functools.cache
    def shown(path: str) -> str:
        if stdin is not None and path == stdin_name:
            return stdin.display_path
        return display_path(root / path)

    kept = [_shown_from_here(finding, shown) for finding in kept]
    kept.sort(key=Finding.sort_key)
    return CheckResult(
        findings=kept,
        files_checked=checked,
        files_for_context=context,
        suppressed=suppressed,
        uncertain=uncertain,
        warnings=warnings,
        read_paths=frozenset(map(shown, read)),
        root=root,
        whole_project=touched is None,
        baselined=baselined,
    )


def _shown_from_here(finding: Finding, shown: Callable[[str], str]) -> Finding:
    """The finding with its paths (its file's, its path's steps', its fix's) as shown."""
    fix = finding.fix
    if fix is not None:
        fix = replace(fix, edits=tuple(replace(edit, path=shown(edit.path)) for edit in fix.edits))
    return replace(
        finding,
        path=shown(finding.path),
        flow=tuple(replace(step, path=shown(step.path)) for step in finding.flow),
        fix=fix,
    )


def checked_text(
    path: str, read: Collection[str], stdin: StdinSource | None, base: Path = Path()
) -> str | None:
    """The text of a file the run read (by its declared encoding), to fingerprint its findings;
    None for any other file (never one the run refused, such as a link out of the project).
    Relative paths start from ``base``."""
    if path not in read:
        return None
    try:
        data = stdin.data if stdin is not None and path == stdin.display_path else (base / path).read_bytes()
    except OSError:
        return None
    return decode(data)[0]


def project_root(settings: Settings, paths: Sequence[Path]) -> tuple[Path, bool]:
    """The project the checked paths belong to, and whether it is one (a configuration or a
    git work tree): the configuration's directory, else the git work tree, else the outermost
    package holding them (not the directory above it: for an installed package that is
    site-packages, every other package's code)."""
    if settings.config_file is not None:
        return settings.root, True
    first = paths[0].absolute() if paths else Path.cwd()
    start = first if first.is_dir() else first.parent
    try:
        top = os.fsdecode(git(start, "rev-parse", "--show-toplevel", timeout=30).stdout).strip()
        return Path(top), True
    except (OSError, subprocess.SubprocessError):
        pass
    while (start.parent / "__init__.py").is_file() and start.parent != start:
        start = start.parent
    return start, False


def _with_context(
    targets: list[Candidate], paths: Sequence[Path], root: Path, settings: Settings
) -> tuple[list[Candidate], Callable[[Finding], bool] | None]:
    """The given files and directories plus the rest of their project, which the analysis
    reads for context, so that a part is analysed as it runs in the whole; and which findings
    to report: those whose copy or path touches a given file (None: every one, the whole
    project was given)."""
    real_root = root.resolve()
    if any(path.is_dir() and real_root.is_relative_to(path.resolve()) for path in paths):
        return targets, None
    if not targets:
        return targets, lambda finding: False  # nothing given to check (all excluded, say)
    known = {c.path.absolute() for c in targets}
    context = [
        c
        for c in discover([root], settings, root)
        if not c.problem and not c.skipped and c.path.absolute() not in known
    ]
    files = {project_path(os.fspath(c.path), root) for c in targets}

    def touches(finding: Finding) -> bool:
        return any(place in files for place in (finding.path, *(step.path for step in finding.flow)))

    return targets + context, touches


def analysis_fingerprint(settings: Settings) -> str:
    """What an analysis result depends on besides the project's code: the settings and the
    code of the analysis itself."""
    return f"{settings.fingerprint()}\0{code_fingerprint()}"


def _summaries(
    candidates: list[Candidate],
    named: Callable[[Path], str],
    cache: SummaryCache | None,
    jobs: int,
    progress: Progress | None,
    sources: dict[str, tuple[Path, frozenset[str], frozenset[str]]],
    read: set[str],
) -> list[FileSummary]:
    """Each candidate's summary, from the cache where it has one, under its path from the
    project root (``named``); ``sources`` gets the file behind each cache key, to read again if
    the cache loses its code, and ``read`` the files read."""
    results: list[FileSummary | None] = [None] * len(candidates)
    to_parse: list[_Item] = []
    for index, candidate in enumerate(candidates):
        name = named(candidate.path)
        if candidate.problem:
            results[index] = FileSummary(name, diagnostics=[Diagnostic(candidate.problem)])
            continue
        try:
            data = candidate.path.read_bytes()
        except OSError as error:
            reason = error.strerror or type(error).__name__
            if not candidate.path.exists():
                reason += " (a dangling symbolic link?)"
            results[index] = FileSummary(name, diagnostics=[Diagnostic(f"cannot read the file: {reason}")])
            continue
        read.add(name)
        key = cache.key(name, data) if cache is not None else ""
        if key:
            sources[key] = (candidate.path, frozenset(), frozenset())
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            results[index] = cached
        elif passes_gate(data):
            to_parse.append((index, name, data, key, frozenset(), frozenset()))
        else:
            summary = summarize(name, data)  # cheap: no parse
            summary.cache_key = key
            results[index] = summary
            if cache is not None:
                cache.put(key, summary)
    for (index, _, _, key, _, _), summary in zip(to_parse, _parse_all(to_parse, jobs, progress), strict=True):
        summary.cache_key = key
        results[index] = summary
        if cache is not None:
            cache.put(key, summary)
    # A file that names nothing the gate knows but imports a function or class the parsed
    # files export calls into the analysis: it is parsed too, for those calls.
    exported = {name for done in results if done is not None for name in done.exported}
    _parse_for_names(
        _importers(results, exported), "calls", candidates, results, cache, jobs, progress, sources
    )
    # A module the parsed files import from, which defines what they use (a helper that
    # writes the buffers, a class whose methods they call): parsed for those definitions.
    used = _definitions_used(candidates, results)
    # Those modules as they were before being parsed for these definitions: their importers
    # below may want others of theirs.
    stubs = {index: unparsed for index in used if (unparsed := results[index]) is not None}
    _parse_for_names(used, "defines", candidates, results, cache, jobs, progress, sources)
    # And what those definitions use from further modules (a helper the parsed one calls,
    # defined in a third module), a few imports deep.
    used = dict(used)
    reading = set(used)
    # The subclasses of a class whose methods only declare themselves (an abstract backend the
    # parsed code calls): what such a call runs.
    implementations = _subclasses_of(results, stubs)
    for _ in range(_DEFINITION_DEPTH):
        further: dict[int, frozenset[str]] = {}
        wanted = _definitions_used(candidates, results, readers=reading, stubs=stubs)
        for index, names in implementations.items():
            wanted[index] = wanted.get(index, frozenset()) | names
        implementations = {}
        for index, names in wanted.items():
            if not names <= used.get(index, frozenset()):
                further[index] = names | used.get(index, frozenset())
                if index in stubs:
                    results[index] = stubs[index]  # parsed again, for more of its definitions
                elif (unparsed := results[index]) is not None:
                    stubs[index] = unparsed
        if not further:
            break
        _parse_for_names(further, "defines", candidates, results, cache, jobs, progress, sources)
        used.update(further)
        reading = set(further)
    # Records a parsed file builds from another module (a result type it returns): their
    # importers handle what it returns.
    more = {
        name
        for index, names in used.items()
        if (defining := results[index]) is not None
        for name in names
        if name in defining.records
    } - exported
    if more:
        importers = _importers(results, more)
        _parse_for_names(importers, "calls", candidates, results, cache, jobs, progress, sources)
        # What those importers use from modules not parsed, or parsed for other definitions
        # (the class whose method they call on what they built): parsed for it too.
        wanted = _definitions_used(candidates, results, readers=importers.keys(), stubs=stubs)
        for index, names in wanted.items():
            if index in stubs and not names <= used[index]:
                wanted[index] = names | used[index]
                results[index] = stubs[index]
        _parse_for_names(wanted, "defines", candidates, results, cache, jobs, progress, sources)
    return [summary for summary in results if summary is not None]


def _subclasses_of(
    results: list[FileSummary | None], stubs: Mapping[int, FileSummary]
) -> dict[int, frozenset[str]]:
    """Each file not parsed, or parsed only for some definitions (``stubs``), by index, with
    the classes it defines on a base that a parsed file declares abstract methods in."""
    abstract = {name for summary in results if summary is not None for name in summary.abstract}
    if not abstract:
        return {}
    found: dict[int, frozenset[str]] = {}
    for index, result in enumerate(results):
        summary = stubs.get(index, result)
        if summary is None or summary.parsed or summary.diagnostics:
            continue
        names = {name for name, bases in summary.subclasses if abstract.intersection(bases)}
        if names:
            found[index] = frozenset(names)
    return found


def _importers(results: list[FileSummary | None], names: set[str]) -> dict[int, frozenset[str]]:
    """Each file not parsed yet, by index, with the ones among ``names`` it imports."""
    return {
        index: frozenset(unparsed.imported) & names
        for index, unparsed in enumerate(results)
        if unparsed is not None and not unparsed.parsed
    }


def _parse_for_names(
    wanted: dict[int, frozenset[str]],
    role: str,
    candidates: list[Candidate],
    results: list[FileSummary | None],
    cache: SummaryCache | None,
    jobs: int,
    progress: Progress | None,
    sources: dict[str, tuple[Path, frozenset[str], frozenset[str]]],
) -> None:
    """Parse unparsed files for the names other files need from them: their callers of those
    names (``role`` "calls") or their definitions ("defines")."""
    items: list[_Item] = []
    for index, names in sorted(wanted.items()):
        unparsed = results[index]
        if not names or unparsed is None or unparsed.parsed:
            continue
        try:
            data = candidates[index].path.read_bytes()
        except OSError:
            continue
        key = cache.key(unparsed.path, data + f"\0{role} {' '.join(sorted(names))}".encode()) if cache else ""
        callees, definitions = (names, frozenset[str]()) if role == "calls" else (frozenset[str](), names)
        if key:
            sources[key] = (candidates[index].path, callees, definitions)
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            results[index] = cached
        else:
            items.append((index, unparsed.path, data, key, callees, definitions))
    for (index, _, _, key, _, _), summary in zip(items, _parse_all(items, jobs, progress), strict=True):
        summary.cache_key = key
        results[index] = summary
        if cache is not None:
            cache.put(key, summary)


def _definitions_used(
    candidates: list[Candidate],
    results: list[FileSummary | None],
    readers: Iterable[int] | None = None,
    stubs: Mapping[int, FileSummary] | None = None,
) -> dict[int, frozenset[str]]:
    """For each unparsed module a parsed file (one of ``readers``, if given) imports from, the
    names it may use from there that the module's text defines. ``stubs`` are modules parsed
    for some definitions, as they were before: their other definitions may be wanted too."""
    stubs = stubs or {}
    module_name = ModuleNames()
    modules = [module_name(str(candidate.path)) for candidate in candidates]
    unparsed = {
        name: index
        for index, (name, result) in enumerate(zip(modules, results, strict=True))
        if (summary := stubs.get(index, result)) is not None
        and not summary.parsed
        and not summary.diagnostics
    }
    wanted: dict[int, set[str]] = {}
    for index in range(len(results)) if readers is None else readers:
        summary = results[index]
        if summary is None or not summary.parsed or not summary.uses:
            continue
        is_init = candidates[index].path.stem == "__init__"
        package = modules[index] if is_init else modules[index].rpartition(".")[0]
        for spec, used in summary.uses:
            module = _absolute_module(spec, package)
            target = unparsed.get(module)
            while target is None and "." in module:
                # Above a namespace package (no ``__init__.py``) module names start lower down.
                module = module.partition(".")[2]
                target = unparsed.get(module)
            if target is not None:
                wanted.setdefault(target, set()).update(used)
    found: dict[int, frozenset[str]] = {}
    for index, names in wanted.items():
        summary = stubs.get(index, results[index])
        known = set(summary.defined) if summary is not None else set()
        defined = {name for name in names if name.removeprefix(".") in known}
        if defined:
            found[index] = frozenset(defined)
    return found


def _absolute_module(spec: str, package: str) -> str:
    """``..helpers`` imported in package ``a.b.c`` is ``a.b.helpers``."""
    level = len(spec) - len(spec.lstrip("."))
    if not level:
        return spec
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    rest = spec[level:]
    return ".".join([*base, rest] if rest else base)


# (index, path from the project root, bytes, cache key, names of other files' functions it calls, names
# other files use from it)
_Item = tuple[int, str, bytes, str, frozenset[str], frozenset[str]]


def _summarize_item(item: _Item) -> FileSummary:
    return summarize(item[1], item[2], item[4], item[5])


def _parse_all(items: list[_Item], jobs: int, progress: Progress | None) -> list[FileSummary]:
    total = len(items)
    if jobs <= 1 or total < _PARALLEL_THRESHOLD:
        done = []
        for item in items:
            done.append(_summarize_item(item))
            if progress is not None:
                progress.files(len(done), total)
        return done
    import libcst  # noqa: F401  # imported once here so forked workers inherit it

    return _parse_in_pool(items, jobs, progress, total)


def _parse_in_pool(items: list[_Item], jobs: int, progress: Progress | None, total: int) -> list[FileSummary]:
    """Parse in worker processes; a worker that dies (a native parser crash) costs a retry
    of its half, down to the one file that kills it, which becomes a diagnostic."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    chunk = max(1, min(32, len(items) // (jobs * 4)))
    try:
        with ProcessPoolExecutor(
            max_workers=jobs, mp_context=multiprocessing.get_context(method), initializer=_worker_setup
        ) as pool:
            done = []
            for summary in pool.map(_summarize_item, items, chunksize=chunk):
                done.append(summary)
                if progress is not None:
                    progress.files(len(done), total)
            return done
    except BrokenProcessPool:
        if len(items) == 1:
            message = "the parser crashed on this file (out of memory or a native parser fault)"
            return [FileSummary(items[0][1], diagnostics=[Diagnostic(message)])]
        middle = len(items) // 2
        return _parse_in_pool(items[:middle], jobs, None, total) + _parse_in_pool(
            items[middle:], jobs, None, total
        )
