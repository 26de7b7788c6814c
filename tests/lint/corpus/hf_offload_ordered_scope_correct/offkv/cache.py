"""Offloaded KV cache in the style of transformers' OffloadedCache: every layer lives in pinned
host memory and two device slots hold the layer being attended and the one being prefetched.
Eviction and prefetch each run on their own stream inside an OrderedSideStream scope."""

import torch

from .scope import OrderedSideStream


class OffloadedLayerCache:
    def __init__(self, num_layers, batch, heads, max_len, head_dim, device="cuda", dtype=torch.bfloat16):
        self.num_layers = num_layers
        self.device = torch.device(device)
        self._mod = torch.get_device_module(self.device.type)
        shape = (batch, heads, max_len, head_dim)
        self.host_keys = [torch.zeros(shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.host_values = [torch.zeros(shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.slot_keys = [torch.zeros(shape, dtype=dtype, device=self.device) for _ in range(2)]
        self.slot_values = [torch.zeros(shape, dtype=dtype, device=self.device) for _ in range(2)]
        self.evict_stream = self._mod.Stream(self.device)
        self.prefetch_stream = self._mod.Stream(self.device)
        self._prefetched = [None] * num_layers

    def prefetch(self, layer_idx):
        if layer_idx >= self.num_layers:
            return
        slot = layer_idx % 2
        # the host copy may still be on its way back, and the slot may still be read by the
        # eviction of layer_idx - 2; attention kernels queued on the compute stream may still
        # read it too, which the scope takes care of
        self.prefetch_stream.wait_stream(self.evict_stream)
        with OrderedSideStream(self.prefetch_stream, self.device) as scope:
            self.slot_keys[slot].copy_(self.host_keys[layer_idx], non_blocking=True)
            self.slot_values[slot].copy_(self.host_values[layer_idx], non_blocking=True)
        self._prefetched[layer_idx] = scope.done

    def evict(self, layer_idx):
        slot = layer_idx % 2
        # update() wrote the new tokens into the slot on the compute stream just now
        with OrderedSideStream(self.evict_stream, self.device):
            self.host_keys[layer_idx].copy_(self.slot_keys[slot], non_blocking=True)
            self.host_values[layer_idx].copy_(self.slot_values[slot], non_blocking=True)

    def update(self, key_states, value_states, layer_idx, cache_position):
        if layer_idx == 0:
            self.prefetch(0)
        landed = self._prefetched[layer_idx]
        if landed is not None:
            self._mod.current_stream(self.device).wait_event(landed)
        slot = layer_idx % 2
        k_out, v_out = self.slot_keys[slot], self.slot_values[slot]
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        self.evict(layer_idx)
        self.prefetch(layer_idx + 1)
        return k_out, v_out

    def save(self, path):
        self._mod.synchronize(self.device)
        torch.save({"keys": self.host_keys, "values": self.host_values}, path)
