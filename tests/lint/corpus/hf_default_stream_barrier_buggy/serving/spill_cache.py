"""A per-sequence KV spill cache in the shape of transformers' offloaded caches: the device K/V of
a finished sequence is copied into pinned host tensors on a dedicated offload stream so the
device memory can be handed to the next request. The offload stream is ordered with
``wait_stream(torch.cuda.default_stream(device))``, which is a barrier only when the model ran on
the default stream. Bug: ``Runner.generate`` (serving/runner.py) runs the model under its own
compute stream, so the default stream has not seen the decode kernels that wrote the K/V and
the spill can read them before they are written (KVG001 at each copy)."""

import torch


class SpillCache:
    def __init__(self, num_layers, device):
        self.device = torch.device(device)
        self.num_layers = num_layers
        self.offload_stream = torch.cuda.Stream(self.device)
        self.spilled = {}

    def spill(self, seq_id, past_key_values):
        self.offload_stream.wait_stream(torch.cuda.default_stream(self.device))
        host_layers = []
        with torch.cuda.stream(self.offload_stream):
            for keys, values in past_key_values:
                host_k = torch.empty(keys.shape, dtype=keys.dtype, device="cpu", pin_memory=True)
                host_v = torch.empty(values.shape, dtype=values.dtype, device="cpu", pin_memory=True)
                # expect: KVG001
                host_k.copy_(keys, non_blocking=True)
                # expect: KVG001
                host_v.copy_(values, non_blocking=True)
                keys.record_stream(self.offload_stream)
                values.record_stream(self.offload_stream)
                host_layers.append((host_k, host_v))
            done = torch.cuda.Event()
            done.record(self.offload_stream)
        self.spilled[seq_id] = (host_layers, done)

    def restore(self, seq_id):
        host_layers, done = self.spilled.pop(seq_id)
        done.synchronize()
        return [(k.to(self.device), v.to(self.device)) for k, v in host_layers]
