"""The project model: every summary of the run, and the analyses rules ask for."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from functools import cached_property

from kvguard.lint.config import AnalysisSettings
from kvguard.lint.dependencies import still_holds
from kvguard.lint.facts import FileSummary, MalformedSuppression, Suppression
from kvguard.lint.interpreter import Interpreter
from kvguard.lint.ir import Const, ModuleCode
from kvguard.lint.pathstate import ModuleEntry, ModuleNames
from kvguard.lint.results import Analysis, CopyRun, HostRead
from kvguard.lint.suppressions import SuppressionUse

# The entry of a result's dependencies standing for the project's module listing.
_PROJECT_FILES = "<project files>"


class ProjectModel:
    def __init__(
        self,
        summaries: list[FileSummary],
        known_codes: frozenset[str],
        load_code: Callable[[str], ModuleCode | None] | None = None,
        earlier: Analysis | None = None,
        analysis: AnalysisSettings | None = None,
        fingerprint: str = "",
        root: str | None = None,
    ) -> None:
        """``earlier``: a result of an earlier run, used where it still holds for these files
        (kvguard.lint.dependencies); ``fingerprint``: of the settings and the analysis code
        a result depends on; ``root``: the directory the summaries' relative paths start from
        (the working directory if none)."""
        self.summaries = summaries
        self._root = root
        self._analysis = analysis
        self.known_codes = known_codes
        self._load_code = load_code
        self._earlier = earlier
        self._fingerprint = fingerprint
        # Whether the result was computed by this model, reused as it was, or reused after
        # edits it does not depend on (set when the analysis is first asked for).
        self.analysed = False
        self.reused_after_edits = False
        # Which suppression comments cover a finding of any rule, selected or not (set by the
        # engine before the rules that judge suppressions run).
        self.suppression_uses: set[SuppressionUse] = set()

    def files(self) -> Iterator[FileSummary]:
        return iter(self.summaries)

    @property
    def copy_runs(self) -> list[CopyRun]:
        """Every copy launch along every analysed path."""
        return self.analysis.runs

    @property
    def host_reads(self) -> list[HostRead]:
        """Every host read of a buffer an unfinished copy may still be writing, per path."""
        return self.analysis.host_reads

    @cached_property
    def analysis(self) -> Analysis:
        """The stream-ordering analysis of the whole project, run once (or an earlier run's
        result, where it holds for these files)."""
        modules = self._modules()
        shapes = {name: (s.path, s.code_digest, s.shape) for name, s in modules.items()}
        # Which modules the project has at all (read or not) tells its own compiled extensions
        # from its Python files: a result holds for the same set.
        project_modules = frozenset(self._module_names())
        listing = hashlib.blake2b("\n".join(sorted(project_modules)).encode(), digest_size=12).hexdigest()
        shapes[_PROJECT_FILES] = ("", listing, listing)
        earlier = self._earlier
        if earlier is not None and still_holds(
            earlier.dependencies, self._fingerprint, shapes, lambda name: self._code(modules[name])
        ):
            self.reused_after_edits = earlier.dependencies.modules != shapes
            earlier.dependencies.modules = shapes
            return earlier
        entries = [
            ModuleEntry(name, summary.path, code)
            for name, summary in modules.items()
            if (code := self._code(summary)) is not None
        ]
        result = Interpreter(entries, self._analysis, project_modules).run()
        result.dependencies.fingerprint = self._fingerprint
        result.dependencies.modules = {
            name: shapes[name] for name in (*(entry.name for entry in entries), _PROJECT_FILES)
        }
        self.analysed = True
        return result

    def _module_names(self) -> list[str]:
        """The module name of every file of the run, parsed or not."""
        module_name = ModuleNames(self._root)
        return [module_name(summary.path) for summary in self.summaries]

    def _modules(self) -> dict[str, FileSummary]:
        """The parsed files by module name."""
        module_name = ModuleNames(self._root)
        modules: dict[str, FileSummary] = {}
        for summary in self.summaries:
            if summary.parsed and (summary.code is not None or summary.cache_key):
                # From the file's place, so that names do not depend on the working directory:
                # ``vllm.v1.worker`` whether run from above ``vllm/`` or inside it.
                name = module_name(summary.path)
                if name in modules:
                    name = summary.path  # two files claim one module name: keep both apart
                modules[name] = summary
        return modules

    @property
    def producer_streams(self) -> tuple[str, ...]:
        """Spellings of the producer stream the configuration names, if any."""
        return self._analysis.producer_streams if self._analysis is not None else ()

    def names_bound_in(self, path: str) -> set[str]:
        """Module-level names a file defines or imports (for fixes that spell a name there)."""
        for summary in self.summaries:
            if summary.path == path:
                code = self._code(summary)
                if code is None:
                    return set()
                defined = {f.name for f in code.functions if not f.class_name} | {
                    c.name for c in code.classes
                }
                return set(code.constants) | set(code.imports) | defined
        return set()

    def literal_constants(self, path: str) -> dict[str, object]:
        """Module-level names a file binds to a literal (``ORDER_STREAM = 1``), with the value."""
        for summary in self.summaries:
            if summary.path == path:
                code = self._code(summary)
                if code is None:
                    return {}
                return {
                    name: value.value for name, value in code.constants.items() if isinstance(value, Const)
                }
        return {}

    def _code(self, summary: FileSummary) -> ModuleCode | None:
        """A parsed file's lowered code, loaded from the cache on first use."""
        if summary.code is None and summary.parsed and summary.cache_key and self._load_code is not None:
            summary.code = self._load_code(summary.cache_key)
        return summary.code

    def unknown_suppression_codes(self) -> Iterator[tuple[str, Suppression, str]]:
        """(path, suppression, code) for every code a suppression names that no rule has."""
        for summary in self.summaries:
            for suppression in summary.suppressions:
                for code in suppression.codes:
                    if code not in self.known_codes:
                        yield summary.path, suppression, code

    def malformed_suppressions(self) -> Iterator[tuple[str, MalformedSuppression]]:
        for summary in self.summaries:
            for malformed in summary.malformed_suppressions:
                yield summary.path, malformed

    def unused_suppressions(self) -> Iterator[tuple[str, Suppression, tuple[str, ...]]]:
        """(path, suppression, the codes it names that cover no finding; () for a bare one)
        for every suppression comment that covers less than it says. Files kvguard could not
        read (KVG000) are not judged; unknown codes are KVG100's."""
        for summary in self.summaries:
            if summary.diagnostics:
                continue
            for suppression in summary.suppressions:
                if not suppression.codes:
                    if (summary.path, suppression, "") not in self.suppression_uses:
                        yield summary.path, suppression, ()
                    continue
                unused = tuple(
                    code
                    for code in suppression.codes
                    if code in self.known_codes
                    and (summary.path, suppression, code) not in self.suppression_uses
                )
                if unused:
                    yield summary.path, suppression, unused
