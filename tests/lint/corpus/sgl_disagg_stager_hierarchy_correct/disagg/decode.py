"""Decode side: the receiver fills the staging region from the socket, then the scheduler scatters
it into pages its allocator just handed out."""

from typing import List, Tuple

from disagg.base_stager import BaseKVStager


class DecodeKVStager(BaseKVStager):
    def _ptr_lists(self, page_indices: List[int], slot: int) -> Tuple[List[int], List[int]]:
        pairs = list(self._pairs(page_indices, slot))
        return [pool for pool, _ in pairs], [stage for _, stage in pairs]


class KVReceiver:
    def __init__(self, kv_pool, sock, max_pages: int = 512):
        self.stager = DecodeKVStager(kv_pool, max_pages)
        self.sock = sock

    def poll_and_load(self, allocator) -> int:
        header = self.sock.recv(16)
        room = int.from_bytes(header[:8], "little")
        nbytes = int.from_bytes(header[8:], "little")
        view = memoryview(self.stager.slot_view(0, nbytes).numpy())
        got = 0
        while got < nbytes:
            got += self.sock.recv_into(view[got:], nbytes - got)
        num_pages = nbytes // (self.stager.page_bytes * len(self.stager.kv_data_ptrs))
        pages = allocator.alloc_pages(num_pages)
        self.stager.stage(pages, 0).synchronize()
        return room
