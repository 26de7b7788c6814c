from __future__ import annotations

import logging
import os
import threading
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorRole

from .metadata import CPUOffloadConnectorMetadata
from .save_worker import SaveTask, SaveWorker

if TYPE_CHECKING:
    from vllm.attention.backends.abstract import AttentionMetadata
    from vllm.forward_context import ForwardContext

logger = logging.getLogger(__name__)


class CPUOffloadConnector(KVConnectorBase_V1):
    """Saves the KV of finished prefills layer by layer while the forward runs."""

    def __init__(self, vllm_config, role: KVConnectorRole) -> None:
        super().__init__(vllm_config=vllm_config, role=role)
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        self._root = extra.get("offload_path", "/tmp/vllm_kv_offload")
        self._kv_caches: dict[str, torch.Tensor] = {}
        self._free_buffers: dict[tuple, list[torch.Tensor]] = defaultdict(list)
        self._free_lock = threading.Lock()
        self._save_stream: torch.cuda.Stream | None = None
        self._worker: SaveWorker | None = None

    # ---------------- worker side ----------------
    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self._kv_caches = kv_caches
        self._save_stream = torch.cuda.Stream()
        self._worker = SaveWorker()

    def _acquire_host_buffer(self, shape: tuple, dtype: torch.dtype) -> torch.Tensor:
        with self._free_lock:
            free = self._free_buffers[(shape, dtype)]
            if free:
                return free.pop()
        return torch.empty(shape, dtype=dtype, pin_memory=True)

    def _release_host_buffer(self, buf: torch.Tensor) -> None:
        # called from the save worker once the buffer has been written out
        with self._free_lock:
            self._free_buffers[(tuple(buf.shape), buf.dtype)].append(buf)

    def start_load_kv(self, forward_context: "ForwardContext", **kwargs) -> None:
        meta = self._get_connector_metadata()
        assert isinstance(meta, CPUOffloadConnectorMetadata)
        for req in meta.requests_to_load:
            for layer_name, kv_cache in self._kv_caches.items():
                path = os.path.join(req.storage_prefix, f"{layer_name}.bin")
                block_shape = (len(req.block_ids), *kv_cache[:, 0].shape)
                raw = np.fromfile(path, dtype=np.uint8)
                host = torch.from_numpy(raw).view(kv_cache.dtype).view(block_shape)
                for i, block_id in enumerate(req.block_ids):
                    kv_cache[:, block_id].copy_(host[i])

    def wait_for_layer_load(self, layer_name: str) -> None:
        # loads are issued synchronously on the forward stream in start_load_kv
        return

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor,
                      attn_metadata: "AttentionMetadata", **kwargs: Any) -> None:
        meta = self._get_connector_metadata()
        assert isinstance(meta, CPUOffloadConnectorMetadata)
        if not meta.requests_to_save:
            return
        assert self._save_stream is not None and self._worker is not None

        # kv_layer was just written by this layer's attention on the forward stream
        self._save_stream.wait_stream(torch.cuda.current_stream())
        for req in meta.requests_to_save:
            block_shape = (len(req.block_ids), *kv_layer[:, 0].shape)
            host = self._acquire_host_buffer(block_shape, kv_layer.dtype)
            with torch.cuda.stream(self._save_stream):
                for i, block_id in enumerate(req.block_ids):
                    host[i].copy_(kv_layer[:, block_id], non_blocking=True)
                event = torch.cuda.Event()
                event.record(self._save_stream)
            self._worker.submit(
                SaveTask(
                    req_id=req.req_id,
                    layer_name=layer_name,
                    host_tensor=host,
                    event=event,
                    path=os.path.join(req.storage_prefix, f"{layer_name}.bin"),
                    on_done=self._release_host_buffer,
                )
            )

    def wait_for_save(self) -> None:
        if self._worker is not None:
            self._worker.wait_all()
