"""The `kvguard` block of `kv_connector_extra_config`: what kvguard adds to the stock settings.

    "kv_connector_extra_config": {"cpu_bytes_to_use": ..., "kvguard": {"policy": "refuse",
                                  "verify_fraction": 0.0}}

Every other key of `kv_connector_extra_config` belongs to the stock connector and is read by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kvguard.runtime import GuardPolicy

SETTINGS_KEY = "kvguard"


class KVGuardConfigError(ValueError):
    """The `kvguard` block of kv_connector_extra_config is malformed."""


@dataclass(frozen=True)
class KVGuardSettings:
    # refuse: a copy not ordered behind the compute stream is skipped and counted, and its
    # blocks never enter the CPU cache (stores) or are recomputed (loads); the server keeps going.
    policy: GuardPolicy = GuardPolicy.REFUSE
    # Share of stored blocks compared with their GPU source before reporting.
    verify_fraction: float = 0.0

    @classmethod
    def from_extra_config(cls, extra_config: Mapping[str, Any] | None) -> KVGuardSettings:
        raw = (extra_config or {}).get(SETTINGS_KEY, {})
        if not isinstance(raw, Mapping):
            raise KVGuardConfigError(
                f"kv_connector_extra_config.{SETTINGS_KEY} must be an object, got {raw!r}"
            )
        known = {"policy", "verify_fraction"}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise KVGuardConfigError(
                f"unknown kv_connector_extra_config.{SETTINGS_KEY} keys {unknown}; known: {sorted(known)}"
            )
        policy_name = raw.get("policy", cls.policy.value)
        try:
            policy = GuardPolicy(policy_name)
        except ValueError:
            choices = [p.value for p in GuardPolicy]
            raise KVGuardConfigError(
                f"kv_connector_extra_config.{SETTINGS_KEY}.policy must be one of {choices}, "
                f"got {policy_name!r}"
            ) from None
        fraction = raw.get("verify_fraction", cls.verify_fraction)
        if isinstance(fraction, bool) or not isinstance(fraction, int | float):
            raise KVGuardConfigError(
                f"kv_connector_extra_config.{SETTINGS_KEY}.verify_fraction must be a number, got {fraction!r}"
            )
        if not 0.0 <= fraction <= 1.0:
            raise KVGuardConfigError(
                f"kv_connector_extra_config.{SETTINGS_KEY}.verify_fraction must be in [0, 1], got {fraction}"
            )
        return cls(policy=policy, verify_fraction=float(fraction))
