"""Cache controller: write-through backups and layer-wise loads on side streams."""

from collections import deque
from dataclasses import dataclass, field

import torch


@dataclass
class CacheOperation:
    host_indices: list
    device_indices: list
    node_ids: list = field(default_factory=list)

    @staticmethod
    def merge_ops(ops):
        merged = CacheOperation([], [])
        for op in ops:
            merged.host_indices.extend(op.host_indices)
            merged.device_indices.extend(op.device_indices)
            merged.node_ids.extend(op.node_ids)
        return merged


@dataclass
class HiCacheAck:
    start_event: object
    finish_event: object
    node_ids: list


class LayerDoneCounter:
    def __init__(self, device_module, num_layers):
        self.events = [device_module.Event() for _ in range(num_layers)]

    def wait_until(self, layer_id):
        self.events[layer_id].wait()


class HiCacheController:
    def __init__(self, mem_pool_device, mem_pool_host, device="cuda"):
        self.device_module = torch.get_device_module(device)
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.streams = {
            "write": self.device_module.Stream(),
            "load": self.device_module.Stream(),
        }
        self.write_queue = []
        self.load_queue = []
        self.ack_write_queue = deque()
        self.ack_load_queue = deque()
        self.layer_done_counter = LayerDoneCounter(self.device_module, mem_pool_device.layer_num)

    def write(self, device_indices, node_id):
        host_indices = self.mem_pool_host.alloc(len(device_indices))
        if host_indices is None:
            return None
        self.write_queue.append(CacheOperation(host_indices, list(device_indices), [node_id]))
        self.start_writing()
        return host_indices

    def start_writing(self):
        if not self.write_queue:
            return
        op = CacheOperation.merge_ops(self.write_queue)
        self.write_queue.clear()
        write_stream = self.streams["write"]
        start_event = self.device_module.Event()
        finish_event = self.device_module.Event()
        start_event.record()
        with self.device_module.stream(write_stream):
            start_event.wait(write_stream)
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_indices, op.device_indices
            )
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, op.node_ids))

    def load(self, host_indices, node_id):
        device_indices = self.mem_pool_device.alloc(len(host_indices))
        if device_indices is None:
            return None
        self.load_queue.append(CacheOperation(list(host_indices), device_indices, [node_id]))
        return device_indices

    def start_loading(self):
        if not self.load_queue:
            return -1
        op = CacheOperation.merge_ops(self.load_queue)
        self.load_queue.clear()
        load_stream = self.streams["load"]
        finish_event = self.device_module.Event()
        load_stream.wait_stream(self.device_module.current_stream())
        with self.device_module.stream(load_stream):
            for i in range(self.mem_pool_host.layer_num):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device, op.host_indices, op.device_indices, i
                )
                self.layer_done_counter.events[i].record()
            finish_event.record()
        self.ack_load_queue.append(HiCacheAck(None, finish_event, op.node_ids))
        return len(self.ack_load_queue) - 1

    def poll_acks(self, on_written, on_loaded):
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            on_written(self.ack_write_queue.popleft().node_ids)
        while self.ack_load_queue and self.ack_load_queue[0].finish_event.query():
            on_loaded(self.ack_load_queue.popleft().node_ids)
