"""The `vllm serve` benchmark's own logic (no server): the commands, the lag plugin's
registration and the summary of a run."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

E2E = Path(__file__).resolve().parents[1] / "benchmarks" / "e2e"


def _load() -> tuple[ModuleType, ModuleType]:
    sys.path.insert(0, str(E2E))  # run_serve imports its siblings, as when run as a script
    try:
        import run_serve
        import serve_lag
    finally:
        sys.path.remove(str(E2E))
    return run_serve, serve_lag


run_serve, serve_lag = _load()


def _commands() -> dict[str, list[str]]:
    workload = sys.modules["run_e2e"].Workload()
    model = Path("/models/tiny")
    return {s.name: run_serve.serve_command(s, model, 8123, workload, 2) for s in run_serve.SERVERS}


def _option(command: list[str], name: str) -> str | None:
    return command[command.index(name) + 1] if name in command else None


def test_servers_differ_only_in_the_connector() -> None:
    commands = _commands()
    for command in commands.values():
        assert command[1:4] == ["-m", "vllm.entrypoints.cli.main", "serve"]  # the console script's
        assert _option(command, "--tensor-parallel-size") == "2"
        assert "--async-scheduling" in command and "--enable-prefix-caching" in command
    assert _option(commands["reference"], "--kv-transfer-config") is None
    assert _option(commands["reference"], "--num-gpu-blocks-override") is None
    stock = json.loads(_option(commands["stock"], "--kv-transfer-config") or "")
    ours = json.loads(_option(commands["kvguard"], "--kv-transfer-config") or "")
    assert stock == {
        "kv_connector": "SimpleCPUOffloadConnector",
        "kv_role": "kv_both",
        "kv_connector_extra_config": {"cpu_bytes_to_use": 1 << 30},
    }
    assert ours["kv_connector"] == "KVGuardCPUOffloadConnector"
    assert ours["kv_connector_module_path"] == "kvguard.vllm"
    assert ours["kv_connector_extra_config"]["kvguard"] == {"policy": "refuse", "verify_fraction": 0.0}
    assert _option(commands["stock"], "--num-gpu-blocks-override") == "1280"
    config_at = commands["stock"].index("--kv-transfer-config")
    assert commands["stock"][:config_at] == commands["kvguard"][:config_at]
    assert len(commands["stock"]) == len(commands["kvguard"]) == config_at + 2  # the config is last


def test_the_lag_plugin_is_a_vllm_general_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_serve.write_lag_plugin(tmp_path)
    points = [
        point
        for dist in importlib.metadata.distributions(path=[str(tmp_path)])
        for point in dist.entry_points
    ]
    assert [(p.group, p.value) for p in points] == [("vllm.general_plugins", "serve_lag:register")]
    monkeypatch.setenv(serve_lag.LAG_ENV, "0")
    serve_lag.register()  # no lag asked: returns before importing vLLM (not installed here)


def test_summary_reads_the_scraped_series() -> None:
    def rounds(tail: int) -> list[dict[str, object]]:
        return [
            {"name": "set0", "answers": [[1, 2]]},
            {"name": "set0-repeat", "answers": [[3, tail]]},
        ]

    reference = {"rounds": rounds(4)}
    zero = {
        "vllm:kvguard_copies_checked_total{direction=store,engine=0,rank=0}": 0.0,
        "vllm:kvguard_violations_total{engine=0,kind=no_wait,rank=0}": 0.0,
    }
    run = {
        "rounds": rounds(5),
        "startup_s": 40.0,
        "workload_s": 30.0,
        "metrics_first": zero,
        "metrics_last": {
            **zero,
            "vllm:kvguard_copies_checked_total{direction=store,engine=0,rank=0}": 7.0,
            "vllm:external_prefix_cache_hits_total": 16.0,
        },
    }
    row = run_serve.summarise("kvguard", run, reference)
    assert row["restored_equal"] == 0 and row["restored_requests"] == 1 and row["equal"] == 1
    assert row["kvguard_series_first_scrape"] == 2 and row["kvguard_series_at_zero_first"]
    assert row["checked_stores"] == 7.0 and row["violations"] == 0.0
    assert row["refused"] is None  # no such series was scraped
    assert row["external_hit_tokens"] == 16.0
