"""Moves KV pages between the device pool and the host pool on side streams."""
from typing import List, NamedTuple

import torch

device_module = torch.cuda


class CacheOperation(NamedTuple):
    host_pages: List[int]
    device_pages: List[int]
    node_id: int


class HiCacheAck(NamedTuple):
    start_event: torch.cuda.Event
    finish_event: torch.cuda.Event
    node_ids: List[int]


class HiCacheController:
    def __init__(self, mem_pool_device, mem_pool_host, write_policy: str = "write_through"):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.write_policy = write_policy
        self.write_stream = device_module.Stream()
        self.load_stream = device_module.Stream()
        self.write_queue: List[CacheOperation] = []
        self.load_queue: List[CacheOperation] = []
        self.ack_write_queue: List[HiCacheAck] = []
        self.ack_load_queue: List[HiCacheAck] = []

    def write(self, device_pages: List[int], node_id: int) -> List[int]:
        host_pages = self.mem_pool_host.alloc(len(device_pages))
        if host_pages:
            self.write_queue.append(CacheOperation(host_pages, device_pages, node_id))
        return host_pages

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        ops, self.write_queue = self.write_queue, []
        host_pages = [h for op in ops for h in op.host_pages]
        device_pages = [d for op in ops for d in op.device_pages]
        start_event, finish_event = device_module.Event(), device_module.Event()
        with device_module.stream(self.write_stream):
            start_event.record()
            start_event.wait(self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(self.mem_pool_device, host_pages, device_pages)
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, [op.node_id for op in ops]))

    def start_loading(self) -> None:
        if not self.load_queue:
            return
        ops, self.load_queue = self.load_queue, []
        host_pages = [h for op in ops for h in op.host_pages]
        device_pages = [d for op in ops for d in op.device_pages]
        start_event, finish_event = device_module.Event(), device_module.Event()
        start_event.record()
        with device_module.stream(self.load_stream):
            start_event.wait(self.load_stream)
            for layer_id in range(self.mem_pool_host.layer_num):
                self.mem_pool_host.load_to_device_per_layer(self.mem_pool_device, host_pages, device_pages, layer_id)
            finish_event.record()
        device_module.current_stream().wait_event(finish_event)
        self.ack_load_queue.append(HiCacheAck(start_event, finish_event, [op.node_id for op in ops]))
