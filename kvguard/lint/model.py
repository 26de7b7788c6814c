"""The project model: every summary of the run, and the analyses rules ask for."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

from kvguard.lint.facts import FileSummary, Suppression
from kvguard.lint.ordering import CopySite, copy_sites


class ProjectModel:
    def __init__(self, summaries: list[FileSummary], known_codes: frozenset[str]) -> None:
        self.summaries = summaries
        self.known_codes = known_codes

    def files(self) -> Iterator[FileSummary]:
        return iter(self.summaries)

    @cached_property
    def copy_sites(self) -> list[CopySite]:
        return copy_sites(self.summaries)

    def unknown_suppression_codes(self) -> Iterator[tuple[str, Suppression, str]]:
        """(path, suppression, code) for every code a suppression names that no rule has."""
        for summary in self.summaries:
            for suppression in summary.suppressions:
                for code in suppression.codes:
                    if code not in self.known_codes:
                        yield summary.path, suppression, code
