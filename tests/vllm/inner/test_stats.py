"""Guard counters flow into the connector's stats, through vLLM's IPC encoding, to Prometheus."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
import torch
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from test_worker_order import backend_of, worker  # noqa: F401  (the worker fixture)
from vllm.config import VllmConfig

from kvguard.vllm import KVGuardCPUOffloadConnector, KVGuardStats


def test_counter_deltas_become_per_rank_stats(worker: KVGuardCPUOffloadConnector) -> None:  # noqa: F811
    backend = backend_of(worker)
    assert worker.get_kv_connector_stats() is None  # nothing happened yet
    backend.fake_counters = {
        "stores_checked": 3,
        "loads_checked": 1,
        "violations_no_wait": 1,
        "refused": 1,
        "verified": 0,
    }
    stats = worker.get_kv_connector_stats()
    assert isinstance(stats, KVGuardStats)
    assert stats.reduce() == {
        "vllm:kvguard_copies_checked_total:('0', 'store')": 3,
        "vllm:kvguard_copies_checked_total:('0', 'load')": 1,
        "vllm:kvguard_violations_total:('0', 'no_wait')": 1,
        "vllm:kvguard_refused_copies_total:('0',)": 1,
    }
    backend.fake_counters["stores_checked"] = 5
    assert worker.get_kv_connector_stats().reduce() == {  # only what changed since
        "vllm:kvguard_copies_checked_total:('0', 'store')": 2,
    }


def test_ranks_stay_apart_when_vllm_aggregates_workers() -> None:
    rank0 = KVGuardStats.from_counter_deltas(0, {"refused": 2, "stores_checked": 4})
    rank1 = KVGuardStats.from_counter_deltas(1, {"refused": 1, "stores_checked": 4})
    summary = rank0.aggregate(rank1).reduce()
    assert summary["vllm:kvguard_refused_copies_total:('0',)"] == 2
    assert summary["vllm:kvguard_refused_copies_total:('1',)"] == 1


def test_stats_survive_the_engine_to_frontend_encoding_and_reach_prometheus(
    vllm_config: VllmConfig,
) -> None:
    stats = KVGuardStats.from_counter_deltas(1, {"violations_stale_record": 2, "refused": 2})
    wire = msgspec.msgpack.decode(msgspec.msgpack.encode(stats.data))
    rebuilt = KVGuardCPUOffloadConnector.build_kv_connector_stats(data=wire)
    assert rebuilt.reduce() == stats.reduce()
    metrics: Any = KVGuardCPUOffloadConnector.build_prom_metrics(
        vllm_config,
        {Gauge: Gauge, Counter: Counter, Histogram: Histogram},
        ["model_name", "engine"],
        {0: ["tiny", "0"]},
    )
    metrics.observe(rebuilt.data, engine_idx=0)
    labels = {"model_name": "tiny", "engine": "0", "rank": "1"}
    assert REGISTRY.get_sample_value("vllm:kvguard_violations_total", {**labels, "kind": "stale_record"}) == 2
    assert REGISTRY.get_sample_value("vllm:kvguard_refused_copies_total", labels) == 2


def test_the_rank_label_is_the_rank_within_the_engine(
    vllm_config: VllmConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under data parallelism vLLM's global rank is data_parallel_rank * world_size + rank.
    vllm_config.parallel_config.world_size = 2
    monkeypatch.setattr(torch.distributed, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.distributed, "get_rank", lambda: 3)
    assert KVGuardCPUOffloadConnector._rank_in_engine(vllm_config) == 1
