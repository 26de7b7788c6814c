import logging
from dataclasses import dataclass, field

import torch
from tensorrt_llm._torch.pyexecutor.kv_cache_connector import KvCacheConnectorWorker

from .block_copy import offload_blocks, onboard_blocks
from .config import HostOffloadConfig

logger = logging.getLogger(__name__)


@dataclass
class OffloadMetadata:
    load: list[tuple[int, int]] = field(default_factory=list)  # (host_slot, block_id)
    save: list[tuple[int, int]] = field(default_factory=list)  # (block_id, host_slot)
    save_req_ids: list[int] = field(default_factory=list)


class HostOffloadConnectorWorker(KvCacheConnectorWorker):
    def __init__(self, llm_args, config: HostOffloadConfig):
        super().__init__(llm_args)
        self._config = config
        self._kv_pool: torch.Tensor | None = None
        self._host_pool: torch.Tensor | None = None
        self._load_stream = torch.cuda.Stream()
        self._save_stream = torch.cuda.Stream()
        self._load_done = torch.cuda.Event()
        self._save_done: dict[int, torch.cuda.Event] = {}

    def register_kv_caches(self, kv_cache_tensor: torch.Tensor):
        self._kv_pool = kv_cache_tensor
        host_shape = (self._config.num_host_blocks, *kv_cache_tensor.shape[1:])
        self._host_pool = torch.empty(
            host_shape, dtype=kv_cache_tensor.dtype, pin_memory=self._config.pin_host_pool
        )
        logger.info("registered KV pool %s, host pool %s", tuple(kv_cache_tensor.shape), host_shape)

    def start_load_kv(self, stream: torch.cuda.Stream):
        meta: OffloadMetadata | None = self.get_connector_meta()
        if meta is None or not meta.load:
            return
        with torch.cuda.stream(self._load_stream):
            onboard_blocks(self._kv_pool, self._host_pool, meta.load)
            self._load_done.record()

    def wait_for_layer_load(self, layer_idx: int, stream: torch.cuda.Stream):
        stream.wait_event(self._load_done)

    def save_kv_layer(self, layer_idx: int, stream: torch.cuda.Stream):
        # Blocks are saved as a whole in wait_for_save.
        return

    def wait_for_save(self, stream: torch.cuda.Stream):
        meta: OffloadMetadata | None = self.get_connector_meta()
        if meta is None or not meta.save:
            return
        forward_done = torch.cuda.Event()
        forward_done.record(stream)
        with torch.cuda.stream(self._save_stream):
            self._save_stream.wait_event(forward_done)
            offload_blocks(self._host_pool, self._kv_pool, meta.save)
            save_done = torch.cuda.Event()
            save_done.record()
        stream.wait_event(save_done)
        for req_id in meta.save_req_ids:
            self._save_done[req_id] = save_done

    def get_finished(self, finished_gen_req_ids, started_loading_req_ids):
        done_saving = [r for r in finished_gen_req_ids if self._save_done.get(r) is None
                       or self._save_done[r].query()]
        for req_id in done_saving:
            self._save_done.pop(req_id, None)
        done_loading = list(started_loading_req_ids) if self._load_done.query() else []
        return done_saving, done_loading
