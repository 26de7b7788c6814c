"""Factory resolution, construction for both roles, settings and the engine's name-based case."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import vllm
from conftest import KVGUARD, MakeConfig
from vllm.config import VllmConfig
from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.distributed.kv_transfer.kv_connector.v1.simple_cpu_offload_connector import (
    SimpleCPUOffloadConnector,
)

from kvguard.runtime import GuardPolicy, OrderedCopyBackend
from kvguard.vllm import KVGuardConfigError, KVGuardCPUOffloadConnector
from kvguard.vllm.engine import engine_aligns_cpu_blocks
from kvguard.vllm.worker import GuardedBackendBridge

RELEASE = tuple(int(part) for part in vllm.__version__.split(".")[:2])


def aligned_by_engine(config: VllmConfig, num_cpu_blocks: int) -> None:
    """What EngineCore does after asking has_connector('SimpleCPUOffloadConnector')."""
    if (
        engine_aligns_cpu_blocks()
        and config.kv_transfer_config.has_connector("SimpleCPUOffloadConnector")
        and config.cache_config.enable_prefix_caching
    ):
        config.cache_config.simple_cpu_offload_num_blocks = num_cpu_blocks


def test_factory_resolves_the_class_from_the_module_path(vllm_config: VllmConfig) -> None:
    resolved = KVConnectorFactory.get_connector_class(vllm_config.kv_transfer_config)
    assert resolved is KVGuardCPUOffloadConnector
    assert issubclass(resolved, SimpleCPUOffloadConnector)


def test_scheduler_role_constructs_through_the_factory(vllm_config: VllmConfig, kv_cache_config: Any) -> None:
    aligned_by_engine(vllm_config, 5)
    connector = KVConnectorFactory.create_connector(vllm_config, KVConnectorRole.SCHEDULER, kv_cache_config)
    assert isinstance(connector, KVGuardCPUOffloadConnector)
    assert connector.scheduler_manager is not None and connector.worker_handler is None
    assert connector.kvguard_backend is None


def test_worker_role_holds_kvguards_backend(
    make_vllm_config: MakeConfig, kv_cache_config: Any, caplog: pytest.LogCaptureFixture
) -> None:
    config = make_vllm_config({"kvguard": {"policy": "warn", "verify_fraction": 0.25}})
    with caplog.at_level(logging.INFO, logger="vllm.kvguard"):
        connector = KVConnectorFactory.create_connector(config, KVConnectorRole.WORKER, kv_cache_config)
    assert connector.worker_handler is not None
    assert isinstance(connector.kvguard_backend, OrderedCopyBackend)
    assert connector.kvguard_settings.policy is GuardPolicy.WARN
    assert connector.kvguard_settings.verify_fraction == 0.25
    startup = [r.getMessage() for r in caplog.records if "kvguard active" in r.getMessage()]
    assert startup and "policy=warn" in startup[0] and "verify_fraction=0.25" in startup[0]
    assert "role=WORKER" in startup[0]


def test_worker_shape_is_detected_for_this_release(vllm_config: VllmConfig, kv_cache_config: Any) -> None:
    connector = KVGuardCPUOffloadConnector(vllm_config, KVConnectorRole.WORKER, kv_cache_config)
    shape = connector.kvguard_shape
    assert shape is not None
    if RELEASE <= (0, 23):  # the racy shape: everything launched from get_finished
        assert shape.backend_created_in_constructor
        assert not shape.launch_takes_wait_event
        assert shape.store_launch_sites == ("get_finished",)
        # The bridge replaced the stock backend at construction; register_kv_caches inits it.
        assert isinstance(connector.worker_handler._backend, GuardedBackendBridge)
    else:
        assert not shape.backend_created_in_constructor
        assert shape.launch_takes_wait_event
        assert shape.store_launch_sites == ("wait_for_save",)
        assert shape.load_launch_sites == ("start_load_kv",)


def test_stock_extra_config_keys_still_apply(make_vllm_config: MakeConfig, kv_cache_config: Any) -> None:
    config = make_vllm_config(
        {"cpu_bytes_to_use": 3 << 20, "lazy_offload": True, "kvguard": {"policy": "refuse"}}
    )
    connector = KVGuardCPUOffloadConnector(config, KVConnectorRole.WORKER, kv_cache_config)
    assert connector.worker_handler.cpu_capacity_bytes == 3 << 20
    aligned_by_engine(config, 5)
    scheduler = KVGuardCPUOffloadConnector(config, KVConnectorRole.SCHEDULER, kv_cache_config)
    assert scheduler.scheduler_manager._lazy_mode


def test_prefix_caching_off_disables_offload_like_the_stock_connector(
    make_vllm_config: MakeConfig, kv_cache_config: Any
) -> None:
    config = make_vllm_config(prefix_caching=False)
    connector = KVGuardCPUOffloadConnector(config, KVConnectorRole.WORKER, kv_cache_config)
    assert connector.worker_handler is None and connector.kvguard_backend is None


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"policy": "ignore"}, "policy must be one of"),
        ({"verify_fraction": 2}, "must be in [0, 1]"),
        ({"verify_fraction": "0.1"}, "must be a number"),
        ({"polcy": "raise"}, "unknown kv_connector_extra_config.kvguard keys ['polcy']"),
        ("refuse", "must be an object"),
    ],
)
def test_bad_kvguard_settings_fail_at_startup(
    make_vllm_config: MakeConfig, kv_cache_config: Any, settings: Any, message: str
) -> None:
    config = make_vllm_config({"kvguard": settings})
    with pytest.raises(KVGuardConfigError) as error:
        KVGuardCPUOffloadConnector(config, KVConnectorRole.WORKER, kv_cache_config)
    assert message in str(error.value)


# The engine's name-based treatment of the stock connector.


def test_engine_name_check_matches_the_renamed_class(vllm_config: VllmConfig) -> None:
    config = vllm_config.kv_transfer_config
    if not engine_aligns_cpu_blocks():
        assert RELEASE <= (0, 23)  # no name-based special case in this release
        return
    assert config.has_connector("SimpleCPUOffloadConnector")
    assert config.has_connector("KVGuardCPUOffloadConnector")
    assert not config.has_connector("NixlConnector")


def test_engine_name_check_matches_a_multiconnector_child(make_vllm_config: MakeConfig) -> None:
    if not engine_aligns_cpu_blocks():
        return
    config = make_vllm_config(
        {"connectors": [{"kv_role": "kv_both", **KVGUARD}]},
        connector={"kv_connector": "MultiConnector"},
    ).kv_transfer_config
    assert config.has_connector("SimpleCPUOffloadConnector")


def test_engine_aligned_block_count_reaches_the_scheduler_side(
    vllm_config: VllmConfig, kv_cache_config: Any
) -> None:
    aligned_by_engine(vllm_config, 7)
    connector = KVGuardCPUOffloadConnector(vllm_config, KVConnectorRole.SCHEDULER, kv_cache_config)
    if engine_aligns_cpu_blocks():
        assert connector.scheduler_manager.num_cpu_blocks == 7


def test_scheduler_side_refuses_to_start_without_the_engines_block_count(
    vllm_config: VllmConfig, kv_cache_config: Any
) -> None:
    if not engine_aligns_cpu_blocks():
        KVGuardCPUOffloadConnector(vllm_config, KVConnectorRole.SCHEDULER, kv_cache_config)
        return
    with pytest.raises(RuntimeError, match="did not pass the workers' CPU block count"):
        KVGuardCPUOffloadConnector(vllm_config, KVConnectorRole.SCHEDULER, kv_cache_config)


def test_workers_report_their_block_count_for_the_renamed_class(
    vllm_config: VllmConfig, kv_cache_config: Any
) -> None:
    """The worker-side half of the special case finds connectors by type, not name."""
    if not engine_aligns_cpu_blocks():
        return
    from vllm.distributed.kv_transfer.kv_connector.v1.simple_cpu_offload_connector import (
        _find_simple_cpu_offload_connector,
    )

    connector = KVGuardCPUOffloadConnector(vllm_config, KVConnectorRole.WORKER, kv_cache_config)
    assert _find_simple_cpu_offload_connector(connector) is connector
