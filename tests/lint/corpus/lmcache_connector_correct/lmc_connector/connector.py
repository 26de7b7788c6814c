"""LMCache-style KV connector for the vLLM v1 engine (worker side)."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import (
    KVConnectorBase_V1,
    KVConnectorMetadata,
    KVConnectorRole,
)
from vllm.logger import init_logger

from lmc_connector.config import LMCacheEngineConfig, ReqMeta
from lmc_connector.gpu_connector import VLLMPagedMemGPUConnector
from lmc_connector.storage import create_backend

logger = init_logger(__name__)


@dataclass
class LMCacheConnectorMetadata(KVConnectorMetadata):
    requests: list[ReqMeta] = field(default_factory=list)


@dataclass
class _PendingStore:
    key: str
    buffer: torch.Tensor  # pinned CPU view


class LMCacheConnectorV1(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole) -> None:
        super().__init__(vllm_config=vllm_config, role=role)
        self.config = LMCacheEngineConfig.from_env()
        model_config = vllm_config.model_config
        parallel_config = vllm_config.parallel_config
        num_layers = model_config.get_num_layers(parallel_config)
        self._gpu_connector = VLLMPagedMemGPUConnector(
            num_layers=num_layers,
            num_kv_heads=model_config.get_num_kv_heads(parallel_config),
            head_size=model_config.get_head_size(),
            dtype=model_config.dtype,
            device=torch.device("cuda", torch.cuda.current_device()),
            max_tokens=self.config.max_staging_tokens,
        )
        self._backend = create_backend(self.config)
        self._store_stream = torch.cuda.Stream()
        self._layer_ids: dict[str, int] = {}
        self._pending: list[_PendingStore] = []

    # ---------------- worker side ----------------
    def start_load_kv(self, forward_context, **kwargs) -> None:
        # Retrieval is handled by the LMCache engine out of band.
        return

    def wait_for_layer_load(self, layer_name: str) -> None:
        return

    def _layer_idx(self, layer_name: str) -> int:
        if layer_name not in self._layer_ids:
            self._layer_ids[layer_name] = len(self._layer_ids)
        return self._layer_ids[layer_name]

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata, **kwargs) -> None:
        metadata = self._get_connector_metadata()
        assert isinstance(metadata, LMCacheConnectorMetadata)
        requests = [
            r for r in metadata.requests if r.save_spec is not None and r.save_spec.can_save
        ]
        if not requests:
            return
        layer_idx = self._layer_idx(layer_name)
        slot_mapping = torch.cat(
            [r.slot_mapping[r.save_spec.skip_leading_tokens :] for r in requests]
        )
        staged = self._gpu_connector.gather_layer(layer_idx, kv_layer, slot_mapping)
        host = torch.empty(staged.shape, dtype=staged.dtype, pin_memory=True)
        # The gather ran on the forward stream; order the offload behind it.
        self._store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._store_stream):
            host.copy_(staged, non_blocking=True)

        offset = 0
        for req in requests:
            n = req.num_tokens_to_save
            self._pending.append(
                _PendingStore(key=req.cache_key(layer_idx), buffer=host[:, offset : offset + n])
            )
            offset += n

    def wait_for_save(self) -> None:
        pending, self._pending = self._pending, []
        self._store_stream.synchronize()
        for item in pending:
            self._backend.put(item.key, item.buffer)
        logger.debug("LMCache stored %d layer chunks", len(pending))

    # ---------------- scheduler side ----------------
    def get_num_new_matched_tokens(self, request, num_computed_tokens: int):
        return 0, False

    def update_state_after_alloc(self, request, blocks, num_external_tokens: int) -> None:
        return

    def build_connector_meta(self, scheduler_output) -> KVConnectorMetadata:
        return LMCacheConnectorMetadata()
