"""Prefill side: after the forward pass, gather the request's pages into the staging region and
hand it to a sender thread that ships it to the decode instance once the copy has landed."""

import queue
import threading
from typing import List, Tuple

from disagg.base_stager import BaseKVStager


class PrefillKVStager(BaseKVStager):
    def _ptr_lists(self, page_indices: List[int], slot: int) -> Tuple[List[int], List[int]]:
        pairs = list(self._pairs(page_indices, slot))
        return [stage for _, stage in pairs], [pool for pool, _ in pairs]


class KVSender:
    def __init__(self, kv_pool, sock, max_pages: int = 512, num_slots: int = 2):
        self.stager = PrefillKVStager(kv_pool, max_pages, num_slots)
        self.sock = sock
        self.free_slots: "queue.Queue[int]" = queue.Queue()
        for slot in range(num_slots):
            self.free_slots.put(slot)
        self.send_queue: "queue.Queue" = queue.Queue()
        self.thread = threading.Thread(target=self._send_loop, daemon=True)
        self.thread.start()

    def send(self, bootstrap_room: int, page_indices: List[int]) -> None:
        slot = self.free_slots.get()  # blocks while every slot is still being sent
        done = self.stager.stage(page_indices, slot)
        self.send_queue.put((bootstrap_room, slot, done, self.stager.staged_bytes(len(page_indices))))

    def _send_loop(self) -> None:
        while True:
            item = self.send_queue.get()
            if item is None:
                break
            room, slot, done, nbytes = item
            try:
                done.synchronize()
                header = room.to_bytes(8, "little") + nbytes.to_bytes(8, "little")
                self.sock.sendall(header)
                self.sock.sendall(self.stager.slot_view(slot, nbytes).numpy().tobytes())
            finally:
                self.free_slots.put(slot)


def process_batch_result_disagg_prefill(scheduler, batch, sender: KVSender) -> None:
    scheduler.model_runner.forward(batch.input_ids, batch.out_cache_loc, sender.stager.kv_pool)
    for req in batch.reqs:
        if req.finished_prefill:
            sender.send(req.bootstrap_room, req.page_indices)
