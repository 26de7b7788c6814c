"""Offloaded static KV cache in the shape of transformers' OffloadedStaticCache: every layer's K/V
lives in pinned host tensors, two device slots hold the layer being computed and the next one, and
a prefetch stream writes layer i-1 back to its host tensors and loads layer i+1 into the freed slot
while layer i runs. Events go both ways: when layer i starts, an event recorded on the compute
stream (after layer i-1's append and attention were queued) is waited by the prefetch stream
before the write-back and the load, and the compute stream waits each layer's load event."""

import torch


class OffloadedStaticCache:
    def __init__(self, num_layers, batch, heads, max_len, head_dim, dtype, device):
        self.num_layers = num_layers
        self.device = torch.device(device)
        shape = (2, batch, heads, max_len, head_dim)
        self.host_kv = [torch.zeros(shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.device_slots = [torch.zeros(shape, dtype=dtype, device=self.device) for _ in range(2)]
        self.prefetch_stream = torch.cuda.Stream(device=self.device)
        self.load_events = [torch.cuda.Event() for _ in range(num_layers)]
        self.compute_events = [torch.cuda.Event() for _ in range(num_layers)]

    def _slot(self, layer_idx):
        return self.device_slots[layer_idx % 2]

    def _order_prefetch(self, layer_idx):
        # everything queued on the compute stream so far: earlier layers' appends and attention
        event = self.compute_events[layer_idx]
        event.record()
        self.prefetch_stream.wait_event(event)

    def _write_back(self, layer_idx):
        with torch.cuda.stream(self.prefetch_stream):
            self.host_kv[layer_idx].copy_(self._slot(layer_idx), non_blocking=True)

    def _prefetch(self, layer_idx):
        with torch.cuda.stream(self.prefetch_stream):
            self._slot(layer_idx).copy_(self.host_kv[layer_idx], non_blocking=True)
            self.load_events[layer_idx].record(self.prefetch_stream)

    def start(self):
        self.prefetch_stream.wait_stream(torch.cuda.current_stream())
        self._prefetch(0)

    def update(self, key_states, value_states, layer_idx, cache_position):
        torch.cuda.current_stream().wait_event(self.load_events[layer_idx])
        self._order_prefetch(layer_idx)
        if layer_idx > 0:
            self._write_back(layer_idx - 1)
        if layer_idx + 1 < self.num_layers:
            self._prefetch(layer_idx + 1)
        slot = self._slot(layer_idx)
        slot[0].index_copy_(2, cache_position, key_states)
        slot[1].index_copy_(2, cache_position, value_states)
        return slot[0], slot[1]

    def finish_step(self):
        last = self.num_layers - 1
        # on the compute stream: ordered behind the last layer's attention
        self.host_kv[last].copy_(self._slot(last), non_blocking=True)
        self._order_prefetch(last)
        self._prefetch(0)
