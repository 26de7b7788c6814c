"""Layer-wise store: each layer's KV is snapshotted device-to-device into a scratch buffer that
only the snapshot stream writes, then drained to pinned memory after the forward pass."""

import torch


class LayerwiseSnapshotter:
    def __init__(self, num_layers, tokens, hidden):
        self.snap_stream = torch.cuda.Stream()
        self.scratch = [torch.empty(tokens, hidden, device="cuda") for _ in range(num_layers)]
        self.host = [torch.empty(tokens, hidden, pin_memory=True) for _ in range(num_layers)]
        self.export = torch.empty(num_layers, tokens, hidden)
        self.src = {}

    def snapshot(self, layer, layer_kv):
        self.src[layer] = layer_kv
        self.snap_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.snap_stream):
            self.scratch[layer].copy_(layer_kv, non_blocking=True)
        # The next layer writes layer_kv in place: it must not overtake the snapshot.
        torch.cuda.current_stream().wait_stream(self.snap_stream)

    def drain(self):
        with torch.cuda.stream(self.snap_stream):
            for layer in range(len(self.scratch)):
                self.host[layer].copy_(self.scratch[layer], non_blocking=True)
        self.snap_stream.synchronize()
        with torch.cuda.stream(self.snap_stream):
            for layer in range(len(self.host)):
                self.export[layer].copy_(self.host[layer], non_blocking=True)
        return self.export
