from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import OffloadedCacheConfig
from .host_buffers import HostKVPool, copy_to_device, copy_to_host
from .streams import get_transfer_stream
from .utils_logging import get_logger

logger = get_logger(__name__)


@dataclass
class _LayerEntry:
    device: torch.device
    key: Optional[torch.Tensor] = None
    value: Optional[torch.Tensor] = None
    key_host: Optional[torch.Tensor] = None
    value_host: Optional[torch.Tensor] = None
    ready: Optional[torch.cuda.Event] = None

    @property
    def on_host(self) -> bool:
        return self.key is None


class OffloadedKVCache:
    """
    Dynamic key/value cache that keeps only the current and next layer on the
    accelerator. The previous layer is moved to pinned host memory on a
    dedicated transfer stream and the next layer is brought back on the same
    stream while the current layer computes.
    """

    def __init__(self, config: Optional[OffloadedCacheConfig] = None):
        self.config = config or OffloadedCacheConfig()
        self._layers: List[_LayerEntry] = []
        self._pool = HostKVPool(pin_memory=self.config.pin_memory)
        self._transfer_stream: Optional[torch.cuda.Stream] = None
        self._seen_tokens = 0

    def __len__(self) -> int:
        return len(self._layers)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self._seen_tokens

    def _stream_for(self, device: torch.device) -> torch.cuda.Stream:
        if self._transfer_stream is None:
            self._transfer_stream = get_transfer_stream(device)
        return self._transfer_stream

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]

        if layer_idx >= len(self._layers):
            device = self.config.resolved_device(key_states)
            self._layers.append(_LayerEntry(device=device, key=key_states, value=value_states))
            self._evict_previous_layer(layer_idx)
            return key_states, value_states

        entry = self._fetch(layer_idx)
        entry.key = torch.cat([entry.key, key_states], dim=-2)
        entry.value = torch.cat([entry.value, value_states], dim=-2)

        self._prefetch_layer((layer_idx + 1) % len(self._layers))
        self._evict_previous_layer(layer_idx)
        return entry.key, entry.value

    def _fetch(self, layer_idx: int) -> _LayerEntry:
        entry = self._layers[layer_idx]
        if entry.on_host and entry.ready is None:
            self._prefetch_layer(layer_idx)
        if entry.ready is not None:
            torch.cuda.current_stream(entry.device).wait_event(entry.ready)
            entry.ready = None
        return entry

    def _prefetch_layer(self, layer_idx: int) -> None:
        entry = self._layers[layer_idx]
        stream = self._stream_for(entry.device)
        compute_stream = torch.cuda.current_stream(entry.device)
        with torch.cuda.stream(stream):
            stream.wait_stream(compute_stream)
            if not entry.on_host:
                return
            entry.key = copy_to_device(entry.key_host, entry.device)
            entry.value = copy_to_device(entry.value_host, entry.device)
            entry.ready = torch.cuda.Event()
            entry.ready.record(stream)

    def _evict_previous_layer(self, layer_idx: int) -> None:
        if len(self._layers) <= self.config.min_offload_layers:
            return
        prev_idx = layer_idx - 1 if layer_idx > 0 else len(self._layers) - 1
        entry = self._layers[prev_idx]
        if entry.on_host:
            return
        stream = self._stream_for(entry.device)
        compute_stream = torch.cuda.current_stream(entry.device)
        with torch.cuda.stream(stream):
            stream.wait_stream(compute_stream)
            entry.key_host = copy_to_host(self._pool.acquire(prev_idx, "k", entry.key), entry.key)
            entry.value_host = copy_to_host(self._pool.acquire(prev_idx, "v", entry.value), entry.value)
        entry.key.record_stream(stream)
        entry.value.record_stream(stream)
        entry.key = None
        entry.value = None
        logger.debug("evicted layer %d to host", prev_idx)

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        for idx in range(len(self._layers)):
            entry = self._fetch(idx)
            entry.key = entry.key.index_select(0, beam_idx.to(entry.device))
            entry.value = entry.value.index_select(0, beam_idx.to(entry.device))
