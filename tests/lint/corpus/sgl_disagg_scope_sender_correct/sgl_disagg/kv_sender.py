"""Prefill-side KV sender for the TCP fallback transport: pages of a finished prefill are
gathered into a pinned staging slot on a transfer stream by a worker of a small executor,
then shipped to the decode instance."""

import queue
from concurrent.futures import ThreadPoolExecutor

import torch


class StagingSlot:
    def __init__(self, layer_num, max_tokens, head_num, head_dim, dtype):
        shape = (layer_num, max_tokens, head_num, head_dim)
        self.k = torch.empty(shape, dtype=dtype, pin_memory=True)
        self.v = torch.empty(shape, dtype=dtype, pin_memory=True)


class StagingKVSender:
    def __init__(self, kv_pool, transport, max_pages_per_req=64, num_slots=4):
        self.kv_pool = kv_pool
        self.transport = transport
        self.page_size = kv_pool.page_size
        self._stream = None
        self._free_slots = queue.Queue()
        for _ in range(num_slots):
            self._free_slots.put(StagingSlot(kv_pool.layer_num, max_pages_per_req * self.page_size,
                                             kv_pool.head_num, kv_pool.head_dim, kv_pool.dtype))
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kv-stage")

    @property
    def transfer_stream(self):
        if self._stream is None:
            self._stream = torch.cuda.Stream(device=self.kv_pool.device)
        return self._stream

    def send(self, rid, page_indices, kv_ready):
        """Called on the scheduler thread once the request's prefill has been launched."""
        return self._executor.submit(self._stage_and_ship, rid, list(page_indices), kv_ready)

    def _stage_and_ship(self, rid, page_indices, kv_ready):
        slot = self._free_slots.get()
        try:
            num_tokens = len(page_indices) * self.page_size
            stream = self.transfer_stream
            stream.wait_event(kv_ready)
            with torch.cuda.stream(stream):
                for layer in range(self.kv_pool.layer_num):
                    k_buf, v_buf = self.kv_pool.get_kv_buffer(layer)
                    for i, page in enumerate(page_indices):
                        src = self.kv_pool.page_slots(page)
                        dst = slice(i * self.page_size, (i + 1) * self.page_size)
                        slot.k[layer, dst].copy_(k_buf[src], non_blocking=True)
                        slot.v[layer, dst].copy_(v_buf[src], non_blocking=True)
                staged = torch.cuda.Event()
                staged.record()
            staged.synchronize()
            self.transport.send_kv(rid, slot.k[:, :num_tokens].numpy(), slot.v[:, :num_tokens].numpy())
        finally:
            self._free_slots.put(slot)
