"""A copy thread that serves stores and loads put on a queue."""

import queue
import threading

import torch

from offload.driver import ACCESS_ORDER_ANY, ACCESS_ORDER_STREAM, batch_copy


class BlockMover:
    def __init__(self, gpu_cache, cpu_cache, block_bytes):
        self.gpu_cache = gpu_cache
        self.cpu_cache = cpu_cache
        self.block_bytes = block_bytes
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.requests = queue.Queue()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def submit(self, kind, src_blocks, dst_blocks, ready=None):
        self.requests.put((kind, src_blocks, dst_blocks, ready))

    def _serve(self):
        while True:
            kind, src_blocks, dst_blocks, ready = self.requests.get()
            if kind == "store":
                if ready is not None:
                    self.store_stream.wait_event(ready)
                batch_copy(
                    self.cpu_cache,
                    dst_blocks,
                    self.gpu_cache,
                    src_blocks,
                    self.block_bytes,
                    self.store_stream,
                    ACCESS_ORDER_STREAM,
                )
            else:
                if ready is not None:
                    self.load_stream.wait_event(ready)
                batch_copy(
                    self.gpu_cache,
                    dst_blocks,
                    self.cpu_cache,
                    src_blocks,
                    self.block_bytes,
                    self.load_stream,
                    ACCESS_ORDER_ANY,
                )
