"""Worker side. The executor calls start_load_kv(stream) before the forward,
wait_for_layer_load(i, stream) before layer i's attention, wait_for_save(stream) after the
forward; ``stream`` is the stream the forward pass runs on."""

from typing import List, Optional, Tuple

import torch

from tensorrt_llm._torch.pyexecutor.kv_cache_connector import KvCacheConnectorWorker

from host_offload.metadata import HostOffloadMetadata, LayerwiseLoad, PendingSave


class HostOffloadWorker(KvCacheConnectorWorker):

    def __init__(self, llm_args, num_host_slots: int = 16384):
        super().__init__(llm_args)
        self.num_host_slots = num_host_slots
        self.load_stream = torch.cuda.Stream(priority=-1)
        self.save_stream = torch.cuda.Stream()
        self._load: Optional[LayerwiseLoad] = None
        self._saves: List[PendingSave] = []

    def register_kv_caches(self, kv_cache_tensor: torch.Tensor) -> None:
        # [num_blocks, num_layers, 2, tokens_per_block, kv_heads, head_dim]
        self.kv_cache = kv_cache_tensor
        self.num_layers = kv_cache_tensor.shape[1]
        self.host_cache = torch.empty((self.num_host_slots, ) + tuple(kv_cache_tensor.shape[1:]),
                                      dtype=kv_cache_tensor.dtype, pin_memory=True)

    def start_load_kv(self, stream: torch.cuda.Stream) -> None:
        meta: HostOffloadMetadata = self.get_connector_meta()
        if not meta.loads:
            self._load = None
            return
        load = LayerwiseLoad.for_layers(self.num_layers)
        # the blocks were freed by requests whose last kernels may still be queued on the
        # forward stream: the loads must not overwrite them before those kernels ran
        self.load_stream.wait_stream(stream)
        with torch.cuda.stream(self.load_stream):
            for layer in range(self.num_layers):
                for slot, block in meta.loads:
                    self.kv_cache[block, layer].copy_(self.host_cache[slot, layer], non_blocking=True)
                load.layer_done[layer].record()
        self._load = load

    def wait_for_layer_load(self, layer_idx: int, stream: torch.cuda.Stream) -> None:
        if self._load is not None:
            stream.wait_event(self._load.layer_done[layer_idx])

    def save_kv_layer(self, layer_idx: int, stream: torch.cuda.Stream) -> None:
        pass

    def wait_for_save(self, stream: torch.cuda.Stream) -> None:
        meta: HostOffloadMetadata = self.get_connector_meta()
        if not meta.saves:
            return
        forward_done = torch.cuda.Event()
        forward_done.record(stream)
        self.save_stream.wait_event(forward_done)
        with torch.cuda.stream(self.save_stream):
            for slot, block in meta.saves:
                self.host_cache[slot].copy_(self.kv_cache[block], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        self._saves.append(PendingSave(list(meta.save_req_ids), done))

    def get_finished(self, finished_gen_req_ids: List[int],
                     started_loading_req_ids: List[int]) -> Tuple[List[int], List[int]]:
        saved, pending = [], []
        for save in self._saves:
            if save.done.query():
                saved.extend(save.req_ids)
            else:
                pending.append(save)
        self._saves = pending
        return saved, []
