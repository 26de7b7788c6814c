"""Write-through backups in the shape of SGLang's HiCacheController.start_writing: pending
operations are merged and copied on the write stream after it waits on an event recorded on
the calling thread's current stream; an ack per node is kept until its finish event completes."""

from typing import List, NamedTuple

import torch

from srt.memory_pool_host import HostKVPool


class HiCacheAck(NamedTuple):
    finish_event: torch.cuda.Event
    node_ids: List[int]


class HiCacheController:
    def __init__(self, mem_pool_host: HostKVPool):
        self.mem_pool_host = mem_pool_host
        self.write_stream = torch.cuda.Stream()
        self.write_queue = []
        self.ack_write_queue: List[HiCacheAck] = []

    def write(self, device_pages, node_id: int):
        host_pages = self.mem_pool_host.alloc(len(device_pages))
        if host_pages is not None:
            self.write_queue.append((host_pages, device_pages, node_id))
        return host_pages

    def start_writing(self) -> None:
        if not self.write_queue:
            return
        ops, self.write_queue = self.write_queue, []
        start_event = torch.cuda.Event()
        finish_event = torch.cuda.Event()
        start_event.record()
        with torch.cuda.stream(self.write_stream):
            start_event.wait(self.write_stream)
            for host_pages, device_pages, _ in ops:
                self.mem_pool_host.backup_from_device_all_layer(host_pages, device_pages)
            finish_event.record()
        self.ack_write_queue.append(HiCacheAck(finish_event, [node_id for _, _, node_id in ops]))

    def poll_acks(self) -> List[int]:
        done = []
        while self.ack_write_queue and self.ack_write_queue[0].finish_event.query():
            done.extend(self.ack_write_queue.pop(0).node_ids)
        return done
