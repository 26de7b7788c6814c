"""Per-layer KV snapshots: each layer's row is streamed to host as soon as it is written, and a
full flush writes all rows to a second host buffer for dumping to disk."""

import torch

from .barrier import fence


class LayerSnapshotter:
    def __init__(self, num_layers, width):
        self.width = width
        self.kv = torch.zeros(num_layers, width, device="cuda")
        self.host_rows = torch.empty(num_layers, width, pin_memory=True)
        self.host = torch.empty(num_layers, width, pin_memory=True)
        self.row_stream = torch.cuda.Stream()
        self.flush_stream = torch.cuda.Stream()
        self.ready = torch.cuda.Event()

    def __call__(self, layer, out):
        # runs on the compute stream, right after the layer that produced `out`
        self.kv[layer].copy_(out.reshape(-1)[: self.width])

    def store_layer(self, layer):
        with torch.cuda.stream(fence(self.row_stream)):
            # expect: KVG001
            self.host_rows[layer].copy_(self.kv[layer], non_blocking=True)

    def flush(self):
        # ordered behind the last __call__ through its event, not through a stream barrier
        self.flush_stream.wait_event(self.ready)
        with torch.cuda.stream(self.flush_stream):
            # expect: KVG001
            self.host.copy_(self.kv, non_blocking=True)

    def dump(self, f):
        try:
            self.flush()
        except RuntimeError:
            torch.cuda.synchronize()
            raise
        # expect: KVG003
        f.write(self.host.numpy().tobytes())

    def restore(self, layer):
        with torch.cuda.stream(self.row_stream):
            fresh = self.kv[layer]
            # expect: KVG004
            fresh.copy_(self.host_rows[layer], non_blocking=True)
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.row_stream)
        fresh.record_stream(compute)
        return fresh

    def peek(self, layer):
        row = torch.empty(self.width, pin_memory=True)
        row.copy_(self.kv[layer], non_blocking=True)
        # expect: KVG003
        return row.tolist()
