"""A KV block pool whose constructor allocates inside ``try`` and, if anything fails, releases
what it made before re-raising. Loads wait for the compute stream first; compaction moves
blocks within the pinned host pool, host to host, and needs no barrier."""

import torch


class HostDeviceBlockPool:
    def __init__(self, num_blocks, block_bytes, device_index):
        self.host_blocks = None
        self.device_blocks = None
        self.load_stream = None
        try:
            self._allocate(num_blocks, block_bytes, torch.device("cuda", device_index))
            self.load_stream = torch.cuda.Stream(device=device_index)
        except BaseException:
            self._release()
            raise

    def _allocate(self, num_blocks, block_bytes, device):
        self.host_blocks = torch.empty(num_blocks, block_bytes, dtype=torch.uint8, pin_memory=True)
        self.device_blocks = torch.empty(num_blocks, block_bytes, dtype=torch.uint8, device=device)

    def _release(self):
        if self.load_stream is not None:
            self.load_stream.synchronize()  # no copy may still use the blocks
        self.host_blocks = None
        self.device_blocks = None

    def load(self, host_ids, device_ids):
        self.load_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.load_stream):
            for host_id, device_id in zip(host_ids, device_ids):
                self.device_blocks[device_id].copy_(self.host_blocks[host_id], non_blocking=True)
        return self.load_stream.record_event()

    def compact(self, moves):
        with torch.cuda.stream(self.load_stream):
            for source, target in moves:
                self.host_blocks[target].copy_(self.host_blocks[source], non_blocking=True)


class OffloadWorker:
    def __init__(self, num_blocks, block_bytes, rank):
        self.pool = HostDeviceBlockPool(num_blocks, block_bytes, rank)

    def start_load(self, host_ids, device_ids):
        return self.pool.load(host_ids, device_ids)

    def compact(self, moves):
        self.pool.compact(moves)
