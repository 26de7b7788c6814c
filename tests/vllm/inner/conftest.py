"""Fixtures for the adapter tests: a real VllmConfig and KVCacheConfig, built offline.

The model is a tiny random-weight Llama config written to a temporary directory (no hub access,
no weights: the connector never loads the model).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import LlamaConfig
from vllm.config import (
    CacheConfig,
    DeviceConfig,
    KVTransferConfig,
    ModelConfig,
    ParallelConfig,
    VllmConfig,
)

try:  # after 0.23 the planner moved and takes the engine's global groups
    from vllm.v1.core.kv_cache_planning import get_global_kv_cache_groups, get_kv_cache_configs
except ImportError:
    from vllm.v1.core.kv_cache_utils import get_kv_cache_configs

    get_global_kv_cache_groups = None
from vllm.v1.kv_cache_interface import FullAttentionSpec

NUM_LAYERS = 2
BLOCK_SIZE = 16
NUM_GPU_BLOCKS = 64
KVGUARD = {"kv_connector": "KVGuardCPUOffloadConnector", "kv_connector_module_path": "kvguard.vllm"}


def write_tiny_model(path: Path) -> Path:
    LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=NUM_LAYERS,
        num_attention_heads=4,
        num_key_value_heads=4,
        vocab_size=256,
        max_position_embeddings=512,
    ).save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_model(tmp_path_factory.mktemp("tiny-llama"))


def build_vllm_config(
    model: Path,
    extra_config: dict[str, Any] | None = None,
    connector: dict[str, str] | None = None,
    prefix_caching: bool = True,
    tensor_parallel_size: int = 1,
) -> VllmConfig:
    return VllmConfig(
        model_config=ModelConfig(
            model=str(model),
            skip_tokenizer_init=True,
            max_model_len=256,
            dtype="float16",
        ),
        cache_config=CacheConfig(enable_prefix_caching=prefix_caching, block_size=BLOCK_SIZE),
        device_config=DeviceConfig(device="cpu"),
        parallel_config=ParallelConfig(tensor_parallel_size=tensor_parallel_size),
        kv_transfer_config=KVTransferConfig(
            kv_role="kv_both",
            kv_connector_extra_config={"cpu_bytes_to_use": 1 << 20, **(extra_config or {})},
            **(connector or KVGUARD),
        ),
    )


MakeConfig = Callable[..., VllmConfig]


@pytest.fixture(scope="session")
def make_vllm_config(tiny_model: Path) -> MakeConfig:
    def make(*args: Any, **options: Any) -> VllmConfig:
        return build_vllm_config(tiny_model, *args, **options)

    return make


@pytest.fixture
def vllm_config(make_vllm_config: MakeConfig) -> VllmConfig:
    return make_vllm_config()


@pytest.fixture
def kv_cache_config(vllm_config: VllmConfig) -> Any:
    return plan_kv_cache_config(vllm_config)


def plan_kv_cache_config(vllm_config: VllmConfig) -> Any:
    """The KV cache config EngineCore would plan for this model with 64 GPU blocks."""
    spec = FullAttentionSpec(block_size=BLOCK_SIZE, num_kv_heads=4, head_size=16, dtype=torch.float16)
    layers = {f"model.layers.{i}.self_attn.attn": spec for i in range(NUM_LAYERS)}
    memory = [NUM_GPU_BLOCKS * spec.page_size_bytes * NUM_LAYERS]
    if get_global_kv_cache_groups is None:
        return get_kv_cache_configs(vllm_config, [layers], memory)[0]
    from vllm.v1.attention.backends.utils import resolve_kv_cache_layout

    # As EngineCore does first, for one worker whose attention backend wants the usual layout.
    layout = resolve_kv_cache_layout(vllm_config, [["LBNHC"]], layers.values())
    vllm_config.cache_config.kv_cache_layout = layout.name
    groups = get_global_kv_cache_groups(vllm_config, [layers])
    return get_kv_cache_configs(vllm_config, [layers], memory, groups)[0]
