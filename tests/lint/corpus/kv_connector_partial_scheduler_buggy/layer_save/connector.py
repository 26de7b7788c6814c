"""Layer-wise KV save connector (vLLM KVConnector worker side): every attention layer hands
its freshly written blocks over as soon as it is done, and the copy to host runs on one of a
small pool of streams while the next layers compute."""

import functools

import torch

from .jobs import JobScheduler


class LayerwiseSaveConnector:
    def __init__(self, backend, num_streams=2):
        self.backend = backend
        self.kv_caches = {}
        self.host_buffers = {}
        self._streams = [torch.cuda.Stream() for _ in range(num_streams)]
        self._turn = 0
        self._jobs = JobScheduler()

    def register_kv_caches(self, kv_caches, max_blocks_per_save):
        for name, kv in kv_caches.items():
            self.kv_caches[name] = kv
            self.host_buffers[name] = torch.empty(
                (max_blocks_per_save, *kv.shape[1:]), dtype=kv.dtype, pin_memory=True
            )

    def _next_stream(self):
        stream = self._streams[self._turn]
        self._turn = (self._turn + 1) % len(self._streams)
        return stream

    def save_kv_layer(self, layer_name, block_ids, request_key):
        written = torch.cuda.Event()
        written.record()
        job = functools.partial(
            self._save_layer, layer_name, list(block_ids), request_key, self._next_stream(), written
        )
        self._jobs.register(job)

    def _save_layer(self, layer_name, block_ids, request_key, stream, written):
        kv = self.kv_caches[layer_name]
        host = self.host_buffers[layer_name]
        torch.cuda.current_stream().wait_event(written)
        with torch.cuda.stream(stream):
            for i, block in enumerate(block_ids):
                # expect: KVG001
                host[i].copy_(kv[block], non_blocking=True)
            copied = torch.cuda.Event()
            copied.record()
        copied.synchronize()
        self.backend.put(f"{request_key}/{layer_name}", host[: len(block_ids)].numpy().tobytes())

    def wait_for_save(self):
        self._jobs.drain()
