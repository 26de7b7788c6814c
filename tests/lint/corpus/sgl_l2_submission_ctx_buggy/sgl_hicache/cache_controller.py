"""HiCache controller: backups to the host pool and layer-by-layer loads, from the scheduler."""

from typing import List, NamedTuple

from sgl_hicache.device import get_device_module
from sgl_hicache.l2_transfer import L2Transfer, L2TransferEngine

device_module = get_device_module()


class LayerLoadingEvent:
    def __init__(self, num_layers: int):
        self.load_events = [device_module.Event() for _ in range(num_layers)]
        self.start_event = device_module.Event()

    def complete(self, layer_index: int) -> None:
        self.load_events[layer_index].record()

    def wait(self, layer_index: int) -> None:
        device_module.current_stream().wait_event(self.load_events[layer_index])


class LayerDoneCounter:
    def __init__(self, num_layers: int):
        self.events = [LayerLoadingEvent(num_layers) for _ in range(2)]
        self.producer_index = -1
        self.consumer_index = -1

    def update_producer(self) -> int:
        self.producer_index = (self.producer_index + 1) % len(self.events)
        return self.producer_index

    def set_consumer(self, index: int) -> None:
        self.consumer_index = index

    def wait_until(self, layer_id: int) -> None:
        if self.consumer_index >= 0:
            self.events[self.consumer_index].wait(layer_id)


class HiCacheAck(NamedTuple):
    finish_event: object
    node_ids: List[int]


class HiCacheController:
    def __init__(self, device_pool, host_pool):
        self.mem_pool_device = device_pool
        self.mem_pool_host = host_pool
        self.layer_num = device_pool.layer_num
        self.engine = L2TransferEngine()
        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        device_pool.register_layer_transfer_counter(self.layer_done_counter)
        self.ack_write_queue: List[HiCacheAck] = []
        self.ack_load_queue: List[HiCacheAck] = []

    def write(self, device_pages: List[int], node_id: int):
        host_pages = self.mem_pool_host.alloc(len(device_pages))
        if host_pages is None:
            return None
        transfer = L2Transfer(self.mem_pool_host, self.mem_pool_device, host_pages, device_pages)
        completion = self.engine.submit_device_to_host([transfer])
        self.ack_write_queue.append(HiCacheAck(completion.finish_event, [node_id]))
        return host_pages

    def load(self, host_pages: List[int], device_pages: List[int], node_id: int) -> int:
        producer_id = self.layer_done_counter.update_producer()
        producer_event = self.layer_done_counter.events[producer_id]
        producer_event.start_event.record()
        transfer = L2Transfer(self.mem_pool_host, self.mem_pool_device, host_pages, device_pages)
        completion = self.engine.submit_host_to_device(
            [transfer], self.layer_num, start_event=producer_event.start_event,
            on_layer_done=producer_event.complete,
        )
        self.ack_load_queue.append(HiCacheAck(completion.finish_event, [node_id]))
        return producer_id

    def writing_check(self) -> List[int]:
        done = []
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            done.extend(self.ack_write_queue.pop(0).node_ids)
        return done
