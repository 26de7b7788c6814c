"""An engine with tensor_parallel_size=2: two worker processes in vLLM's real parallel state.

Each rank (tp_rank.py, spawned as vLLM's multiprocess executor spawns its workers, joined over
gloo) constructs kvguard's connector through vLLM's factory, registers KV caches on its own
device (`cuda:<rank>`) through the stock `register_kv_caches`, and stores and loads two blocks in
the model runner's order. Here the ranks' outputs go through vLLM's `KVOutputAggregator`, the
scheduler-side connector and vLLM's Prometheus logger, as the engine core and frontend take them.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import socket
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from conftest import MakeConfig, write_tiny_model
from test_metrics_from_zero import scrape
from test_tensor_parallel import scheduler_with_a_pending_store
from tp_rank import LOAD_REQUEST, WORLD_SIZE, RankReport, run_rank
from vllm.config import VllmConfig
from vllm.distributed.kv_transfer.kv_connector.utils import KVOutputAggregator
from vllm.v1.metrics.loggers import PrometheusStatLogger
from vllm.v1.metrics.prometheus import unregister_vllm_metrics
from vllm.v1.metrics.stats import SchedulerStats
from vllm.v1.outputs import EMPTY_MODEL_RUNNER_OUTPUT

RANK_TIMEOUT_S = 600  # a hung rank (a collective one rank never joins) fails the test


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[RankReport]:
    model = write_tiny_model(tmp_path_factory.mktemp("tiny-llama-tp"))
    with socket.socket() as probe:  # a free port for the ranks' rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    context = multiprocessing.get_context("spawn")
    queue: Any = context.Queue()
    ranks = [
        context.Process(target=run_rank, args=(rank, f"tcp://127.0.0.1:{port}", str(model), queue))
        for rank in range(WORLD_SIZE)
    ]
    for process in ranks:
        process.start()
    try:
        collected = [queue.get(timeout=RANK_TIMEOUT_S) for _ in ranks]
    finally:
        for process in ranks:
            process.join(timeout=60)
            if process.is_alive():
                process.kill()
    assert [process.exitcode for process in ranks] == [0] * WORLD_SIZE
    return sorted(collected, key=lambda report: report.rank)


@pytest.fixture
def tp_config(make_vllm_config: MakeConfig) -> Iterator[VllmConfig]:
    config = make_vllm_config(tensor_parallel_size=WORLD_SIZE)
    config.model_config.served_model_name = "tiny"
    yield config
    unregister_vllm_metrics()


def test_each_rank_labels_its_counters_with_its_rank_in_the_engine(reports: list[RankReport]) -> None:
    assert [(r.rank, r.tp_rank, r.rank_label) for r in reports] == [(0, 0, 0), (1, 1, 1)]


def test_each_rank_guards_the_device_of_its_own_kv_caches(reports: list[RankReport]) -> None:
    for report in reports:
        assert report.cache_device == f"cuda:{report.rank}"
        # The guard read the requesting thread's current stream on the rank's device only, and
        # the copy thread made that device current before its first copy.
        assert report.stream_reads == {report.rank}
        assert report.copy_thread_devices == [report.rank]
        # The stock worker's transfer streams, which kvguard copies on, are the rank's too.
        assert report.store_stream[1] == report.load_stream[1] == report.rank


def test_each_rank_orders_its_copies_behind_its_own_compute_stream(reports: list[RankReport]) -> None:
    for report in reports:
        guard_events = [event for event, stream in report.records if stream == report.compute_stream]
        assert len(guard_events) == 2  # one per copy: the store and the load
        store_event, load_event = guard_events
        assert (report.store_stream[0], store_event) in report.waits
        assert (report.load_stream[0], load_event) in report.waits
        # Nothing was recorded on another stream than the rank's compute and transfer streams.
        streams = {stream for _, stream in report.records}
        assert streams <= {report.compute_stream, report.store_stream[0], report.load_stream[0]}
        assert report.other_device_stream not in streams


def test_each_rank_copied_its_own_blocks(reports: list[RankReport]) -> None:
    for report in reports:
        assert report.stored and report.loaded
    # The ranks agreed on one CPU pool size (0.24 and later: an all-reduce over the world group).
    assert reports[0].num_cpu_blocks == reports[1].num_cpu_blocks


def test_the_engine_joins_the_ranks_outputs(reports: list[RankReport], tp_config: VllmConfig) -> None:
    aggregator = KVOutputAggregator(expected_finished_count=WORLD_SIZE)
    steps = []
    for outputs in zip(*(report.outputs for report in reports), strict=True):
        runner_outputs = [
            dataclasses.replace(EMPTY_MODEL_RUNNER_OUTPUT, kv_connector_output=o) for o in outputs
        ]
        aggregated = aggregator.aggregate(runner_outputs, output_rank=0)
        assert aggregated is not None
        steps.append(aggregated.kv_connector_output)
    # A copy is reported in the step whose get_finished finds it done, on each rank by itself.
    assert [step.finished_recving or set() for step in steps].count({LOAD_REQUEST}) == 1
    assert all(not step.invalid_block_ids for step in steps)

    # The scheduler side settles the store once, when both ranks' reports are in.
    scheduler = scheduler_with_a_pending_store(tp_config)
    settled: list[int] = []
    scheduler.connector._stock_process_store_event = settled.append  # type: ignore[method-assign]
    prometheus = PrometheusStatLogger(tp_config, engine_indexes=[0])
    for step in steps:
        scheduler.connector.update_connector_output(step)
        # As the scheduler makes its stats: the workers' joined with its own connector's (0.24
        # and later have some), then encoded for the frontend, whose logger exports them.
        stats = step.kv_connector_stats
        own = scheduler.connector.get_kv_connector_stats()
        if own is not None and not own.is_empty():
            stats = own if stats is None else stats.aggregate(own)
        if stats is not None:
            wire = msgspec.msgpack.decode(msgspec.msgpack.encode(stats.data))
            prometheus.record(
                scheduler_stats=SchedulerStats(kv_connector_stats=wire), iteration_stats=None, engine_idx=0
            )
    assert settled == [0]

    # Each rank's copies on its own series; every violation, refusal and verification at 0.
    moved = {
        (name, dict(labels)["rank"], dict(labels).get("direction")): value
        for (name, labels), value in scrape().items()
        if value
    }
    assert moved == {
        ("vllm:kvguard_copies_checked_total", str(rank), direction): 1
        for rank in range(WORLD_SIZE)
        for direction in ("store", "load")
    }
