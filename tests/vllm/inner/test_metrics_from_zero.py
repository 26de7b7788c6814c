"""Every kvguard series is on /metrics at 0 from the first scrape, through vLLM's own logger.

PrometheusStatLogger is what `vllm serve` builds for its /metrics endpoint; it asks the
configured connector class for its metrics (KVConnectorProm -> build_prom_metrics). An alert or
`rate()` on a counter needs the series before the counter first moves.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest
from conftest import MakeConfig
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from vllm.config import VllmConfig
from vllm.v1.metrics.loggers import PrometheusStatLogger
from vllm.v1.metrics.prometheus import unregister_vllm_metrics
from vllm.v1.metrics.stats import SchedulerStats

from kvguard.runtime import ViolationKind
from kvguard.vllm import KVGuardStats

Series = tuple[str, frozenset[tuple[str, str]]]


def scrape() -> dict[Series, float]:
    """kvguard's samples in the registry's text exposition, as a scraper reads them."""
    text = generate_latest(REGISTRY).decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith("vllm:kvguard_") and sample.name.endswith("_total")
    }


def expected_series(engines: list[str], ranks: list[str]) -> set[Series]:
    extra: list[tuple[str, dict[str, str]]] = [
        ("vllm:kvguard_copies_checked_total", {"direction": "store"}),
        ("vllm:kvguard_copies_checked_total", {"direction": "load"}),
        *(("vllm:kvguard_violations_total", {"kind": kind.value}) for kind in ViolationKind),
        ("vllm:kvguard_refused_copies_total", {}),
        ("vllm:kvguard_verified_blocks_total", {}),
        ("vllm:kvguard_verify_mismatches_total", {}),
        ("vllm:kvguard_recopied_blocks_total", {}),
    ]
    return {
        (name, frozenset({"model_name": "tiny", "engine": engine, "rank": rank, **labels}.items()))
        for engine in engines
        for rank in ranks
        for name, labels in extra
    }


@pytest.fixture
def two_rank_config(make_vllm_config: MakeConfig) -> Iterator[VllmConfig]:
    config = make_vllm_config(tensor_parallel_size=2)
    config.model_config.served_model_name = "tiny"
    yield config
    unregister_vllm_metrics()  # the process-wide registry: leave it as other tests expect


def test_every_series_is_exported_at_zero_before_any_copy(two_rank_config: VllmConfig) -> None:
    PrometheusStatLogger(two_rank_config, engine_indexes=[0, 1])
    samples = scrape()
    assert set(samples) == expected_series(["0", "1"], ["0", "1"])
    assert set(samples.values()) == {0.0}


def test_counts_land_on_the_series_exported_at_zero(two_rank_config: VllmConfig) -> None:
    prometheus = PrometheusStatLogger(two_rank_config, engine_indexes=[0, 1])
    deltas = {"stores_checked": 5, "loads_checked": 2, "violations_no_wait": 1, "refused": 1}
    stats = KVGuardStats.from_counter_deltas(1, deltas)
    wire = msgspec.msgpack.decode(msgspec.msgpack.encode(stats.data))  # as the engine sends it
    prometheus.record(
        scheduler_stats=SchedulerStats(kv_connector_stats=wire), iteration_stats=None, engine_idx=1
    )

    samples = scrape()
    assert set(samples) == expected_series(["0", "1"], ["0", "1"])  # no series added
    moved = {key: value for key, value in samples.items() if value}
    engine1_rank1 = {"model_name": "tiny", "engine": "1", "rank": "1"}
    assert moved == {
        ("vllm:kvguard_copies_checked_total", frozenset({**engine1_rank1, "direction": "store"}.items())): 5,
        ("vllm:kvguard_copies_checked_total", frozenset({**engine1_rank1, "direction": "load"}.items())): 2,
        ("vllm:kvguard_violations_total", frozenset({**engine1_rank1, "kind": "no_wait"}.items())): 1,
        ("vllm:kvguard_refused_copies_total", frozenset(engine1_rank1.items())): 1,
    }
