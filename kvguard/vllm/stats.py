"""Guard and verification counters in vLLM's KV-connector stats and Prometheus metrics.

Each worker reports the change in its backend's counters every step, labelled with its rank in
its engine, so the counters of all ranks survive vLLM's aggregation across workers (counters with
equal labels add up; the rank label keeps them apart). Every series the runtime's counters can
feed is exported at 0 from the start, for every engine and rank, so that an alert or `rate()` on
a counter that never moved (violations on a healthy server) has a series to read.

The payload uses the self-describing shape of the stock connector's stats in 0.24 and later
({"types": {name: kind}, "data": {name: {labels: value}}}), so on those releases the stock
scheduler-side stats and kvguard's travel together and both are exported; on 0.19 to 0.23, whose
stock connector has no stats, kvguard's are the only ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vllm.distributed.kv_transfer.kv_connector.v1.metrics import (
    KVConnectorPromMetrics,
    KVConnectorStats,
)

from kvguard.runtime.guard import counter_names

_StockStats: Any = KVConnectorStats
_StockPromMetrics: Any = KVConnectorPromMetrics
try:  # the stock connector's stats and metrics, where the release has them (0.24 and later)
    from vllm.v1.simple_kv_offload import metrics as _stock_metrics

    _StockStats = _stock_metrics.SimpleCPUOffloadStats
    _StockPromMetrics = _stock_metrics.SimpleCPUOffloadPromMetrics
except ImportError:
    pass

TYPES, DATA, COUNTER = "types", "data", "counter"

CHECKED = "vllm:kvguard_copies_checked_total"
VIOLATIONS = "vllm:kvguard_violations_total"
REFUSED = "vllm:kvguard_refused_copies_total"
VERIFIED = "vllm:kvguard_verified_blocks_total"
MISMATCHES = "vllm:kvguard_verify_mismatches_total"
RECOPIED = "vllm:kvguard_recopied_blocks_total"

# metric name -> (documentation, label names after "rank")
METRICS: dict[str, tuple[str, tuple[str, ...]]] = {
    CHECKED: ("KV copies the kvguard guard checked before the driver saw them.", ("direction",)),
    VIOLATIONS: (
        "KV copies that were not ordered behind the compute stream, by kind "
        "(no_wait, wait_not_on_compute, stale_record, unsafe_source_order).",
        ("kind",),
    ),
    REFUSED: (
        "KV copies kvguard skipped (policy refuse, or a verification mismatch a re-copy did "
        "not fix): refused stores never enter the CPU cache, refused loads are recomputed.",
        (),
    ),
    VERIFIED: ("Stored KV blocks compared with their GPU source.", ()),
    MISMATCHES: ("Verified KV blocks whose CPU copy differed from the GPU source.", ()),
    RECOPIED: ("Mismatched KV blocks copied again behind a device synchronize.", ()),
}


def metric_of(counter: str) -> tuple[str, tuple[str, ...]] | None:
    """The metric and extra label values that a runtime counter name feeds."""
    if counter in ("stores_checked", "loads_checked"):
        return CHECKED, (counter.removesuffix("s_checked"),)
    if counter.startswith("violations_"):
        return VIOLATIONS, (counter.removeprefix("violations_"),)
    plain = {"refused": REFUSED, "verified": VERIFIED, "mismatches": MISMATCHES, "recopied": RECOPIED}
    return (plain[counter], ()) if counter in plain else None


def every_series() -> list[tuple[str, tuple[str, ...]]]:
    """Every (metric, extra label values) some runtime counter feeds, in a stable order."""
    return sorted({target for counter in counter_names() if (target := metric_of(counter)) is not None})


@dataclass  # a fresh __init__ that runs __post_init__ (0.23's base class has none)
class KVGuardStats(_StockStats):  # type: ignore[misc]
    """Counter deltas keyed by metric name and label values (rank first)."""

    def __post_init__(self) -> None:
        if DATA not in self.data:
            self.reset()

    def reset(self) -> None:
        self.data: dict[str, Any] = {TYPES: {}, DATA: {}}

    @classmethod
    def from_counter_deltas(cls, rank: int, deltas: Mapping[str, int]) -> KVGuardStats:
        stats = cls()
        for counter, delta in deltas.items():
            target = metric_of(counter)
            if target is not None and delta:
                name, labels = target
                stats.increase_counter(name, delta, (str(rank), *labels))
        return stats

    def increase_counter(self, name: str, amount: int | float = 1, labelvalues: tuple[str, ...] = ()) -> None:
        self.data[TYPES].setdefault(name, COUNTER)
        values = self.data[DATA].setdefault(name, {})
        values[labelvalues] = values.get(labelvalues, 0) + amount

    def set_gauge(self, name: str, value: int | float, labelvalues: tuple[str, ...] = ()) -> None:
        self.data[TYPES].setdefault(name, "gauge")
        self.data[DATA].setdefault(name, {})[labelvalues] = value

    def aggregate(self, other: KVConnectorStats) -> KVConnectorStats:
        """Counters add up, gauges keep the newest value; accepts the stock payload too."""
        other_data = other.data if other.data else {TYPES: {}, DATA: {}}
        for name, label_values in other_data.get(DATA, {}).items():
            kind = other_data[TYPES][name]
            self.data[TYPES].setdefault(name, kind)
            current = self.data[DATA].setdefault(name, {})
            for labels, value in label_values.items():
                current[labels] = current.get(labels, 0) + value if kind == COUNTER else value
        return self

    def reduce(self) -> dict[str, int | float]:
        summary: dict[str, int | float] = {}
        for name, label_values in self.data[DATA].items():
            if name.endswith("_info"):  # the stock connector's constant config fingerprint
                continue
            for labels, value in label_values.items():
                summary[f"{name}:{labels}" if labels else name] = value
        return summary

    def is_empty(self) -> bool:
        return not self.data.get(DATA)


class KVGuardPromMetrics(_StockPromMetrics):  # type: ignore[misc]
    """kvguard's counters, per rank, beside the stock connector's metrics where it has them."""

    def __init__(
        self,
        vllm_config: Any,
        metric_types: dict[type, type],
        labelnames: list[str],
        per_engine_labelvalues: dict[int, list[object]],
    ) -> None:
        super().__init__(vllm_config, metric_types, labelnames, per_engine_labelvalues)
        self._kvguard_counters = {
            name: self._counter_cls(name=name, documentation=doc, labelnames=[*labelnames, "rank", *extra])
            for name, (doc, extra) in METRICS.items()
        }
        self._kvguard_children: dict[tuple[int, str, tuple[str, ...]], Any] = {}
        # Ranks as the workers label them (connector.py: the rank within the engine).
        ranks = range(vllm_config.parallel_config.world_size)
        for engine_idx in per_engine_labelvalues:
            for rank in ranks:
                for name, extra in every_series():
                    self._child(engine_idx, name, (str(rank), *extra))

    def _child(self, engine_idx: int, name: str, labels: tuple[str, ...]) -> Any:
        """The counter of one engine, metric and label values; made (at 0) on first use."""
        key = (engine_idx, name, labels)
        child = self._kvguard_children.get(key)
        if child is None:
            engine_labels = self.per_engine_labelvalues[engine_idx]
            child = self._kvguard_counters[name].labels(*engine_labels, *labels)
            self._kvguard_children[key] = child
        return child

    def observe(self, transfer_stats_data: dict[str, Any], engine_idx: int = 0) -> None:
        ours = {k: v for k, v in transfer_stats_data.get(DATA, {}).items() if k in METRICS}
        stock = {k: v for k, v in transfer_stats_data.get(DATA, {}).items() if k not in METRICS}
        if stock:
            super().observe({TYPES: transfer_stats_data.get(TYPES, {}), DATA: stock}, engine_idx)
        for name, label_values in ours.items():
            for labels, value in label_values.items():
                self._child(engine_idx, name, tuple(labels)).inc(value)
