import functools
import logging
import os
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional, Sequence, Tuple

import torch

from kv_host_offload.config import HostOffloadConfig
from kv_host_offload.platform_utils import compute_stream, device_module, synchronize_device
from kv_host_offload.staging import stage_blocks_to_device, stage_blocks_to_host

logger = logging.getLogger(__name__)


class KVHostOffloader:
    def __init__(self, kv_layers: List[torch.Tensor], config: HostOffloadConfig, device: torch.device):
        self.kv_layers = kv_layers
        self.config = config
        self.device = device
        self.dm = device_module(device)
        self.offload_stream = self.dm.Stream(device)
        self.load_stream = self.dm.Stream(device)
        self.executor = ThreadPoolExecutor(config.num_persist_workers, thread_name_prefix="kv-persist")
        os.makedirs(config.save_dir, exist_ok=True)
        self.persisted: Dict[str, str] = {}
        self.checksums: Dict[str, int] = {}
        self.futures: Dict[str, Future] = {}
        self.inflight_loads: List[Tuple[torch.Event, torch.Tensor]] = []

    def _host_buffer(self, num_blocks: int) -> torch.Tensor:
        shape = (len(self.kv_layers), num_blocks, *self.kv_layers[0].shape[1:])
        return torch.empty(shape, dtype=self.kv_layers[0].dtype, pin_memory=True)

    def save(self, req_id: str, block_ids: Sequence[int]) -> None:
        host_buf = self._host_buffer(len(block_ids))
        ready = self.dm.Event()
        ready.record()
        with self.dm.stream(self.offload_stream):
            self.offload_stream.wait_event(ready)
            stage_blocks_to_host(host_buf, self.kv_layers, block_ids)
            staged = self.dm.Event()
            staged.record()
        future = self.executor.submit(self._persist, req_id, host_buf, staged)
        future.add_done_callback(functools.partial(self._on_persisted, req_id))
        self.futures[req_id] = future

    def _persist(self, req_id: str, host_buf: torch.Tensor, staged) -> str:
        staged.synchronize()
        if self.config.verify_checksum:
            self.checksums[req_id] = zlib.crc32(host_buf.view(torch.uint8).numpy())
        path = os.path.join(self.config.save_dir, req_id + self.config.file_suffix)
        torch.save(host_buf, path)
        return path

    def _on_persisted(self, req_id: str, future: Future) -> None:
        self.futures.pop(req_id, None)
        if future.exception() is not None:
            logger.error("Persisting %s failed: %s", req_id, future.exception())
            return
        self.persisted[req_id] = future.result()

    def load(self, req_id: str, block_ids: Sequence[int]) -> bool:
        path: Optional[str] = self.persisted.get(req_id)
        if path is None:
            return False
        host_buf = torch.load(path).pin_memory()
        if self.config.verify_checksum and zlib.crc32(host_buf.view(torch.uint8).numpy()) != self.checksums.get(req_id):
            logger.warning("Checksum mismatch for %s, dropping", req_id)
            return False
        compute = compute_stream(self.device)
        self.load_stream.wait_stream(compute)
        with self.dm.stream(self.load_stream):
            stage_blocks_to_device(self.kv_layers, host_buf, block_ids)
            loaded = self.dm.Event()
            loaded.record()
        compute.wait_event(loaded)
        self.inflight_loads.append((loaded, host_buf))
        return True

    def reclaim(self) -> None:
        self.inflight_loads = [(ev, buf) for ev, buf in self.inflight_loads if not ev.query()]

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)
        synchronize_device(self.device)
