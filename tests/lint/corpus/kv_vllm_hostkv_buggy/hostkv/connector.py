"""Worker half of the host-offload connector."""

import torch

from .metadata import TransferStreams, allocate_host_cache


class HostKVConnectorWorker:
    def __init__(self, num_host_blocks, device=None):
        self.num_host_blocks = num_host_blocks
        self._streams = TransferStreams(device)
        self.kv_caches = {}
        self.host_caches = {}
        self._metadata = None
        self._layer_load_events = {}
        self._pending_saves = {}
        self._pending_loads = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        for name, gpu_cache in kv_caches.items():
            self.host_caches[name] = allocate_host_cache(gpu_cache, self.num_host_blocks)

    def bind_connector_metadata(self, metadata):
        self._metadata = metadata

    def clear_connector_metadata(self):
        self._metadata = None

    def start_load_kv(self, forward_context, **kwargs):
        metadata = self._metadata
        if metadata is None or not metadata.loads:
            return
        stream = self._streams.load
        with torch.cuda.stream(stream):
            for name, gpu_cache in self.kv_caches.items():
                host_cache = self.host_caches[name]
                for req in metadata.loads:
                    for src, dst in zip(req.host_block_ids, req.gpu_block_ids):
                        # expect: KVG004
                        gpu_cache[:, dst].copy_(host_cache[:, src], non_blocking=True)
                layer_done = torch.cuda.Event()
                layer_done.record(stream)
                self._layer_load_events[name] = layer_done
        for req in metadata.loads:
            self._pending_loads[req.req_id] = layer_done

    def wait_for_layer_load(self, layer_name):
        event = self._layer_load_events.pop(layer_name, None)
        if event is not None:
            torch.cuda.current_stream().wait_event(event)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        metadata = self._metadata
        if metadata is None or not metadata.saves:
            return
        stream = self._streams.save
        host_cache = self.host_caches[layer_name]
        with torch.cuda.stream(stream):
            for req in metadata.saves:
                for src, dst in zip(req.gpu_block_ids, req.host_block_ids):
                    # expect: KVG001
                    host_cache[:, dst].copy_(kv_layer[:, src], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        for req in metadata.saves:
            self._pending_saves.setdefault(req.req_id, []).append(done)

    def wait_for_save(self):
        # Saves complete asynchronously; get_finished reports them.
        return

    def get_finished(self, finished_req_ids):
        done_sending = set()
        for req_id, events in list(self._pending_saves.items()):
            if req_id in finished_req_ids and all(e.query() for e in events):
                done_sending.add(req_id)
                del self._pending_saves[req_id]
        done_recving = set()
        for req_id, event in list(self._pending_loads.items()):
            if event.query():
                done_recving.add(req_id)
                del self._pending_loads[req_id]
        return done_sending or None, done_recving or None
