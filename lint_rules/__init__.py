"""The rule registry: every rule kvguard runs, in code order."""

from __future__ import annotations

from kvguard.lint.rule import Rule
from lint_rules.kvg000_unreadable_file import UnreadableFile
from lint_rules.kvg001_unordered_device_to_host_copy import UnorderedDeviceToHostCopy
from lint_rules.kvg002_out_of_order_source_read import OutOfOrderSourceRead
from lint_rules.kvg003_host_read_before_copy_completes import HostReadBeforeCopyCompletes
from lint_rules.kvg004_unordered_load_to_device import UnorderedLoadToDevice
from lint_rules.kvg100_unknown_suppression_code import UnknownSuppressionCode
from lint_rules.kvg101_malformed_suppression import MalformedSuppression
from lint_rules.kvg102_unused_suppression import UnusedSuppression

RULES: tuple[type[Rule], ...] = (
    UnreadableFile,
    UnorderedDeviceToHostCopy,
    OutOfOrderSourceRead,
    HostReadBeforeCopyCompletes,
    UnorderedLoadToDevice,
    UnknownSuppressionCode,
    MalformedSuppression,
    UnusedSuppression,
)


def rule_for(code: str) -> type[Rule] | None:
    return next((rule for rule in RULES if rule.code == code.upper()), None)


def default_states() -> dict[str, bool]:
    return {rule.code: rule.default_enabled for rule in RULES}
