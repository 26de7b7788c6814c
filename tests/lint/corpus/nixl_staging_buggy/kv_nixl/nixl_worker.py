# SPDX-License-Identifier: Apache-2.0
import logging
import queue
import threading
from typing import Dict, List, Optional, Tuple

import torch
from cuda.bindings import driver

from .cuda_copy import batch_copy_d2h, check, copy_h2d_regions, create_event, create_stream
from .envs import NIXL_KV_PLANES, NIXL_SEND_QUEUE_TIMEOUT_S, NIXL_SENDER_THREAD_NAME
from .host_buffer import HostStagingBuffer
from .metadata import NixlConnectorMetadata

logger = logging.getLogger(__name__)


class NixlConnectorWorker:
    def __init__(self, engine_id: str, device_id: int, nixl_wrapper):
        self.engine_id = engine_id
        self.device_id = device_id
        self.nixl_wrapper = nixl_wrapper
        self.xfer_stream = create_stream()
        self._save_ready = create_event()
        self._layer_events: List[driver.CUevent] = []
        self._layer_index: Dict[str, int] = {}
        self.kv_caches: Dict[str, torch.Tensor] = {}
        self.host_buffer: Optional[HostStagingBuffer] = None
        self._send_queue: "queue.Queue[Optional[Tuple[List[str], driver.CUevent]]]" = queue.Queue()
        self._stop = threading.Event()
        self._sender = threading.Thread(
            target=self._sender_loop, name=NIXL_SENDER_THREAD_NAME, daemon=True
        )
        self._sender.start()

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        # Each layer: [2, num_blocks, block_size, num_kv_heads, head_size]
        self.kv_caches = kv_caches
        self._layer_index = {name: i for i, name in enumerate(kv_caches)}
        first = next(iter(kv_caches.values()))
        self.num_blocks = first.shape[1]
        self.block_bytes = first.stride(1) * first.element_size()
        self.plane_bytes = first.stride(0) * first.element_size()
        self.host_buffer = HostStagingBuffer(len(kv_caches), self.num_blocks, self.block_bytes)
        self._layer_events = [create_event() for _ in kv_caches]
        self.nixl_wrapper.register_memory(self.host_buffer.base_addr, self.host_buffer.nbytes)

    def _regions(self, layer_name: str, block_ids: List[int]) -> Tuple[List[int], List[int]]:
        layer_idx = self._layer_index[layer_name]
        base = self.kv_caches[layer_name].data_ptr()
        dev, host = [], []
        for plane in range(NIXL_KV_PLANES):
            for block_id in block_ids:
                dev.append(base + plane * self.plane_bytes + block_id * self.block_bytes)
                host.append(self.host_buffer.block_addr(layer_idx, plane, block_id))
        return dev, host

    def _compute_stream(self) -> driver.CUstream:
        return driver.CUstream(torch.cuda.current_stream().cuda_stream)

    def start_load_kv(self, metadata: NixlConnectorMetadata) -> None:
        if not metadata.reqs_to_recv:
            return
        for layer_name, layer_idx in self._layer_index.items():
            dsts: List[int] = []
            srcs: List[int] = []
            for meta in metadata.reqs_to_recv.values():
                dev, host = self._regions(layer_name, meta.local_block_ids)
                dsts.extend(dev)
                srcs.extend(host)
            copy_h2d_regions(dsts, srcs, [self.block_bytes] * len(dsts), self.xfer_stream)
            check(driver.cuEventRecord(self._layer_events[layer_idx], self.xfer_stream))

    def wait_for_layer_load(self, layer_name: str) -> None:
        event = self._layer_events[self._layer_index[layer_name]]
        check(driver.cuStreamWaitEvent(self._compute_stream(), event, 0))

    def wait_for_save(self, metadata: NixlConnectorMetadata) -> None:
        if not metadata.reqs_to_save:
            return
        check(driver.cuEventRecord(self._save_ready, self._compute_stream()))
        check(driver.cuStreamWaitEvent(self.xfer_stream, self._save_ready, 0))
        dsts: List[int] = []
        srcs: List[int] = []
        for layer_name in self._layer_index:
            for meta in metadata.reqs_to_save.values():
                dev, host = self._regions(layer_name, meta.local_block_ids)
                srcs.extend(dev)
                dsts.extend(host)
        batch_copy_d2h(dsts, srcs, [self.block_bytes] * len(dsts), self.device_id, self.xfer_stream)
        done = create_event()
        check(driver.cuEventRecord(done, self.xfer_stream))
        self._send_queue.put((list(metadata.reqs_to_save), done))

    def _sender_loop(self) -> None:
        while not self._stop.is_set():
            try:
                item = self._send_queue.get(timeout=NIXL_SEND_QUEUE_TIMEOUT_S)
            except queue.Empty:
                continue
            if item is None:
                break
            req_ids, done = item
            check(driver.cuEventSynchronize(done))
            check(driver.cuEventDestroy(done))
            for req_id in req_ids:
                self.nixl_wrapper.send_notif(self.engine_id, req_id.encode())
            logger.debug("Staged %d requests to host for remote read", len(req_ids))

    def shutdown(self) -> None:
        self._stop.set()
        self._send_queue.put(None)
        self._sender.join()
        if self.host_buffer is not None:
            self.host_buffer.close()
