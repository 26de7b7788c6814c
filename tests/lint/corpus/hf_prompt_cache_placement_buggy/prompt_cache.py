"""Prompt-cache reuse in the shape of the transformers docs recipe ("re-use the cache of a
prompt"), moved off the device: the K/V of a prefilled system prompt is saved into pinned host
tensors on a save stream and later restored into the device slots of the cache on a restore
stream. Host and device tensors are made with the usual placement spellings:
``torch.empty_like(x, device="cpu")``, ``x.new_empty(..., device="cpu", pin_memory=True)``,
``.pin_memory()``, ``.cuda()``, lists and dicts filled in loops. Bugs: ``save`` copies the K/V the
prefill just wrote with no barrier behind the compute stream (KVG001 at the keys copy, the values
copy and the ``.cpu()`` of the lengths); ``restore`` loads into the persistent device slots that
kernels of the previous request may still read, again with no barrier (KVG004)."""

import torch


class PromptCacheStore:
    def __init__(self, num_layers, shape, dtype=torch.float16):
        self.num_layers = num_layers
        self.save_stream = torch.cuda.Stream()
        self.restore_stream = torch.cuda.Stream()
        self.device_slots = []
        for _ in range(num_layers):
            self.device_slots.append(torch.empty((2,) + tuple(shape), dtype=dtype).cuda())
        self.saved = {}

    def save(self, name, gpu_keys, gpu_values, gpu_lengths):
        host_keys = {}
        host_values = {}
        for layer in range(self.num_layers):
            host_keys[layer] = torch.empty_like(gpu_keys[layer], device="cpu").pin_memory()
            host_values[layer] = gpu_values[layer].new_empty(gpu_values[layer].shape, device="cpu", pin_memory=True)
        with torch.cuda.stream(self.save_stream):
            for layer in range(self.num_layers):
                # expect: KVG001
                host_keys[layer].copy_(gpu_keys[layer], non_blocking=True)
                # expect: KVG001
                host_values[layer].copy_(gpu_values[layer], non_blocking=True)
                gpu_keys[layer].record_stream(self.save_stream)
                gpu_values[layer].record_stream(self.save_stream)
            # expect: KVG001
            lengths = gpu_lengths.cpu()
        done = torch.cuda.Event()
        done.record(self.save_stream)
        self.saved[name] = (host_keys, host_values, lengths, done)

    def remember_prompt(self, name, token_id_list):
        token_ids = torch.tensor(token_id_list, dtype=torch.long)
        host_ids = torch.zeros_like(token_ids)
        shadow = token_ids.new_empty(token_ids.shape)
        with torch.cuda.stream(self.save_stream):
            host_ids.copy_(token_ids, non_blocking=True)
            shadow.copy_(token_ids)
        return host_ids, shadow

    def restore(self, name):
        host_keys, host_values, lengths, done = self.saved[name]
        done.synchronize()
        with torch.cuda.stream(self.restore_stream):
            for layer in range(self.num_layers):
                # expect: KVG004
                self.device_slots[layer][0].copy_(host_keys[layer], non_blocking=True)
                # expect: KVG004
                self.device_slots[layer][1].copy_(host_values[layer], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.restore_stream)
        return self.device_slots, lengths


def prefill_and_save(model, store, name, input_ids):
    with torch.no_grad():
        out = model(input_ids=input_ids.cuda(), use_cache=True)
    keys = [layer_keys for layer_keys, _ in out.past_key_values]
    values = [layer_values for _, layer_values in out.past_key_values]
    lengths = torch.full((input_ids.shape[0],), input_ids.shape[1], device="cuda")
    store.save(name, keys, values, lengths)
