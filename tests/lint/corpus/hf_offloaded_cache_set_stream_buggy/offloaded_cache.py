"""Dynamic offloaded KV cache in the shape of transformers' OffloadedCache (the key_cache /
value_cache list version): after layer i is updated, layer i-1 is evicted into pinned host
buffers and layer i+1 is prefetched back. The eviction switches the thread's current stream with
``torch.cuda.set_stream`` instead of a context manager. Bugs: ``evict_previous_layer`` takes its
"compute" alias after switching to the offload stream, so the offload stream waits on itself and
the eviction can read keys the compute stream has not finished writing (KVG001, twice);
``offload_all`` switches to the offload stream with no barrier at all (KVG001, twice)."""

import torch


class OffloadedCache:
    def __init__(self, max_len, device="cuda"):
        self.max_len = max_len
        self.device = torch.device(device)
        self.key_cache = []
        self.value_cache = []
        self.seq_lens = []
        self.host_keys = []
        self.host_values = []
        self.offload_stream = torch.cuda.Stream(self.device)
        self.prefetch_stream = torch.cuda.Stream(self.device)

    def __len__(self):
        return len(self.key_cache)

    def _host_buffer(self, like):
        shape = like.shape[:2] + (self.max_len,) + like.shape[3:]
        return torch.empty(shape, dtype=like.dtype, device="cpu", pin_memory=True)

    def evict_previous_layer(self, layer_idx):
        if len(self) < 3:
            return
        prev = (layer_idx - 1) % len(self)
        if self.key_cache[prev] is None:
            return
        seq = self.seq_lens[prev]
        torch.cuda.set_stream(self.offload_stream)
        compute = torch.cuda.current_stream()
        self.offload_stream.wait_stream(compute)
        # expect: KVG001
        self.host_keys[prev][:, :, :seq].copy_(self.key_cache[prev], non_blocking=True)
        # expect: KVG001
        self.host_values[prev][:, :, :seq].copy_(self.value_cache[prev], non_blocking=True)
        self.key_cache[prev].record_stream(self.offload_stream)
        self.value_cache[prev].record_stream(self.offload_stream)
        torch.cuda.set_stream(torch.cuda.default_stream(self.device))
        self.key_cache[prev] = None
        self.value_cache[prev] = None

    def prefetch_layer(self, layer_idx):
        if layer_idx >= len(self) or self.key_cache[layer_idx] is not None:
            return
        seq = self.seq_lens[layer_idx]
        self.prefetch_stream.wait_stream(self.offload_stream)
        with torch.cuda.stream(self.prefetch_stream):
            self.key_cache[layer_idx] = self.host_keys[layer_idx][:, :, :seq].to(self.device, non_blocking=True)
            self.value_cache[layer_idx] = self.host_values[layer_idx][:, :, :seq].to(self.device, non_blocking=True)

    def __getitem__(self, layer_idx):
        torch.cuda.current_stream().wait_stream(self.prefetch_stream)
        if self.key_cache[layer_idx] is not None:
            # prefetched tensors were allocated on the prefetch stream
            self.key_cache[layer_idx].record_stream(torch.cuda.current_stream())
            self.value_cache[layer_idx].record_stream(torch.cuda.current_stream())
        self.evict_previous_layer(layer_idx)
        self.prefetch_layer((layer_idx + 1) % len(self))
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def update(self, key_states, value_states, layer_idx):
        if len(self) <= layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
            self.seq_lens.append(key_states.shape[-2])
            self.host_keys.append(self._host_buffer(key_states))
            self.host_values.append(self._host_buffer(value_states))
            self.evict_previous_layer(layer_idx)
            return key_states, value_states
        keys, values = self[layer_idx]
        self.key_cache[layer_idx] = torch.cat([keys, key_states], dim=-2)
        self.value_cache[layer_idx] = torch.cat([values, value_states], dim=-2)
        self.seq_lens[layer_idx] = self.key_cache[layer_idx].shape[-2]
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def offload_all(self):
        compute = torch.cuda.current_stream()
        torch.cuda.set_stream(self.offload_stream)
        for idx in range(len(self)):
            if self.key_cache[idx] is None:
                continue
            seq = self.seq_lens[idx]
            # expect: KVG001
            self.host_keys[idx][:, :, :seq].copy_(self.key_cache[idx], non_blocking=True)
            # expect: KVG001
            self.host_values[idx][:, :, :seq].copy_(self.value_cache[idx], non_blocking=True)
        torch.cuda.set_stream(compute)
        self.offload_stream.synchronize()
