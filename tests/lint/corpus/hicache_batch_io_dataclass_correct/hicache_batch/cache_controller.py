from typing import List, NamedTuple, Optional

import torch

from hicache_batch.memory_pool_host import MHATokenToKVPool, MHATokenToKVPoolHost


class HiCacheAck(NamedTuple):
    start_event: torch.cuda.Event
    finish_event: torch.cuda.Event
    node_ids: List[int]


class LayerLoadingEvent:
    def __init__(self, num_layers: int):
        self.start_event = torch.cuda.Event()
        self.load_events = [torch.cuda.Event() for _ in range(num_layers)]

    def complete(self, layer_index: int) -> None:
        self.load_events[layer_index].record()

    def wait(self, layer_index: int) -> None:
        torch.cuda.current_stream().wait_event(self.load_events[layer_index])


class HiCacheController:
    def __init__(self, mem_pool_device: MHATokenToKVPool, mem_pool_host: MHATokenToKVPoolHost):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.layer_num = mem_pool_device.layer_num
        self.write_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.write_queue: List[tuple] = []
        self.load_queue: List[tuple] = []
        self.ack_write_queue: List[HiCacheAck] = []
        self.ack_load_queue: List[HiCacheAck] = []
        self.layer_loading = LayerLoadingEvent(self.layer_num)

    def write(self, device_pages: List[int], node_id: int) -> Optional[List[int]]:
        host_pages = self.mem_pool_host.alloc(len(device_pages) * self.mem_pool_host.page_size)
        if host_pages is None:
            return None
        self.write_queue.append((host_pages, device_pages, node_id))
        self.start_writing()
        return host_pages

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        host_pages = [p for h, _, _ in self.write_queue for p in h]
        device_pages = [p for _, d, _ in self.write_queue for p in d]
        node_ids = [n for _, _, n in self.write_queue]
        self.write_queue.clear()
        start_event, finish_event = torch.cuda.Event(), torch.cuda.Event()
        start_event.record()
        with torch.cuda.stream(self.write_stream):
            start_event.wait(self.write_stream)
            self.mem_pool_host.backup_from_device_all_layer(self.mem_pool_device, host_pages,
                                                            device_pages, self.write_stream)
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(start_event, finish_event, node_ids))

    def load(self, host_pages: List[int], device_pages: List[int], node_id: int) -> None:
        self.load_queue.append((host_pages, device_pages, node_id))

    def start_loading(self) -> None:
        if not self.load_queue:
            return
        host_pages = [p for h, _, _ in self.load_queue for p in h]
        device_pages = [p for _, d, _ in self.load_queue for p in d]
        node_ids = [n for _, _, n in self.load_queue]
        self.load_queue.clear()
        producer = self.layer_loading
        producer.start_event.record()
        with torch.cuda.stream(self.load_stream):
            producer.start_event.wait(self.load_stream)
            for i in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(self.mem_pool_device, host_pages,
                                                            device_pages, i, self.load_stream)
                producer.complete(i)
        self.ack_load_queue.append(HiCacheAck(producer.start_event, producer.load_events[-1], node_ids))

    def writing_check(self) -> List[int]:
        done = []
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            done.extend(self.ack_write_queue.pop(0).node_ids)
        return done
