"""Every rule's VALID and INVALID examples, run through the real engine.

Adding a rule to the registry adds its examples here: nothing else to write.
"""

from __future__ import annotations

import pytest

from kvguard.lint.rule import Example, Rule
from lint_rules import RULES
from tests.lint.conftest import Lint


def _cases(kind: str) -> list[object]:
    cases = []
    for rule in RULES:
        examples: tuple[Example, ...] = getattr(rule, kind)
        for index, example in enumerate(examples):
            label = f"{rule.code}-{kind.lower()}-{index}" + (f"-{example.note}" if example.note else "")
            cases.append(pytest.param(rule, example, id=label.replace(" ", "_")))
    return cases


@pytest.mark.parametrize(("rule", "example"), _cases("VALID"))
def test_valid_example_has_no_finding(lint: Lint, rule: type[Rule], example: Example) -> None:
    result = lint(example.sources(), select=(rule.code,))
    assert [f for f in result.findings if f.code == rule.code] == []


@pytest.mark.parametrize(("rule", "example"), _cases("INVALID"))
def test_invalid_example_is_flagged_where_expected(lint: Lint, rule: type[Rule], example: Example) -> None:
    assert example.expect, "an INVALID example must say where its findings are"
    result = lint(example.sources(), select=(rule.code,))
    found = sorted((f.path, f.span.line, f.span.column) for f in result.findings if f.code == rule.code)
    expected = sorted((e.path, e.line, e.column) for e in example.expect)
    assert found == expected


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_rule_is_documented_and_has_examples(rule: type[Rule]) -> None:
    page = rule.page
    assert all(text.strip() for text in (rule.summary, page.flags, page.why, page.bad, page.good, page.fix))
    assert rule.VALID and rule.INVALID
    assert rule.code.startswith("KVG") and len(rule.code) == 6
    assert rule.name == rule.name.lower() and " " not in rule.name


def test_codes_and_names_are_unique() -> None:
    assert len({rule.code for rule in RULES}) == len(RULES)
    assert len({rule.name for rule in RULES}) == len(RULES)
    assert [rule.code for rule in RULES] == sorted(rule.code for rule in RULES)
