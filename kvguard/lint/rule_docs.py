"""Rule pages as Markdown: SARIF's ``help.markdown`` and docs/rules.md are made here.

``python -m kvguard.lint.rule_docs > docs/rules.md`` rewrites the document (a test keeps it
current).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata

from kvguard.lint.rule import Rule

# Where the rules document lives in the kvguard repository.
RULES_DOCUMENT = "docs/rules.md"


def fenced(code: str, language: str = "python") -> str:
    """A code block whose fences stand on lines of their own, whatever ``code`` ends with."""
    return f"```{language}\n{code.strip(chr(10))}\n```"


def page_markdown(rule: type[Rule]) -> str:
    """A rule's page in the shape of ruff's: what it flags, why, example, use instead, fix."""
    page = rule.page
    parts = [
        page.flags,
        f"**Why it matters.** {page.why}",
        "**Example**",
        fenced(page.bad),
        "**Use instead**",
        fenced(page.good),
        f"**How to fix.** {page.fix}",
    ]
    if page.references:
        parts.append("**References**\n\n" + "\n".join(f"- <{reference}>" for reference in page.references))
    return "\n\n".join(parts) + "\n"


def anchor(rule: type[Rule]) -> str:
    """The rule's heading anchor in the rules document (GitHub's slug of ``KVG001 name``)."""
    return f"{rule.code.lower()}-{rule.name}"


def rules_document(rules: Sequence[type[Rule]]) -> str:
    sections = [
        "# kvguard rules\n\n"
        "One section per rule, as `kvguard explain CODE` prints it. Generated from `lint_rules/` "
        "by `python -m kvguard.lint.rule_docs`; do not edit by hand.\n"
    ]
    for rule in rules:
        state = "on" if rule.default_enabled else "off"
        sections.append(
            f"## {rule.code} {rule.name}\n\n{rule.summary}. Default: {state}.\n\n{page_markdown(rule)}"
        )
    return "\n".join(sections)


def help_uri(rule: type[Rule]) -> str | None:
    """The absolute URL of a rule's section in the repository's rules document, when the
    installed kvguard names its repository (``[project.urls] Repository``); None otherwise
    (SARIF wants an absolute URI there, and a guessed one would mislead)."""
    repository = repository_url()
    if repository is None:
        return None
    return f"{repository.rstrip('/')}/blob/HEAD/{RULES_DOCUMENT}#{anchor(rule)}"


def repository_url() -> str | None:
    try:
        urls: list[str] = metadata.metadata("kvguard").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("repository", "source", "source code") and url.strip():
            return url.strip()
    return None


if __name__ == "__main__":
    from lint_rules import RULES

    print(rules_document(RULES), end="")
