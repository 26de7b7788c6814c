"""Write-through half of a hierarchical cache controller: finished prefixes are copied
page by page to the host mirror on a dedicated write stream; acknowledgements carry the
event that tells the scheduler when the host copy may be trusted."""

from typing import List, NamedTuple

import torch

from minihc.kvcache import HostKVCache, PagedKVCache

WRITE_THRESHOLD_PAGES = 4


class WriteTxn(NamedTuple):
    node_id: int
    device_pages: List[int]
    host_pages: List[int]


class WriteAck(NamedTuple):
    node_ids: List[int]
    finish_event: torch.cuda.Event


class HiCacheController:
    def __init__(self, device_kv: PagedKVCache, host_kv: HostKVCache):
        self.device_kv = device_kv
        self.host_kv = host_kv
        self.write_stream = torch.cuda.Stream()
        # keep the context object around; entering it is cheaper than rebuilding it
        self.write_stream_ctx = torch.cuda.stream(self.write_stream)
        self.write_queue: List[WriteTxn] = []
        self.acks: List[WriteAck] = []

    def prepare_write(self, node_id: int, device_pages: List[int]) -> bool:
        if len(device_pages) < WRITE_THRESHOLD_PAGES:
            return False
        host_pages = self.host_kv.alloc(len(device_pages))
        if host_pages is None:
            return False
        self.write_queue.append(WriteTxn(node_id, device_pages, host_pages))
        return True

    def start_write(self) -> None:
        if not self.write_queue:
            return
        txns, self.write_queue = self.write_queue, []
        # the pages were just written by this step's forward; take the forward's stream
        # before entering the write stream's context, inside it current_stream() is ours
        current_stream = torch.cuda.current_stream()
        with self.write_stream_ctx:
            self.write_stream.wait_stream(current_stream)
            for txn in txns:
                self._copy_pages(txn)
            finish = self.write_stream.record_event()
        self.acks.append(WriteAck([t.node_id for t in txns], finish))

    def _copy_pages(self, txn: WriteTxn) -> None:
        for layer_id in range(self.device_kv.num_layers):
            src_layer = self.device_kv.layers[layer_id]
            dst_layer = self.host_kv.layers[layer_id]
            for d, h in zip(txn.device_pages, txn.host_pages):
                dst_layer[h].copy_(src_layer[d], non_blocking=True)

    def poll_acks(self) -> List[int]:
        done = []
        while self.acks and self.acks[0].finish_event.query():
            done.extend(self.acks.pop(0).node_ids)
        return done
