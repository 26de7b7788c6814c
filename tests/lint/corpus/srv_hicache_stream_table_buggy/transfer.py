"""A HiCache-style transfer engine that keeps its streams in a table: the write and load streams
live in a dict behind properties, and layer loads alternate over a list of two streams so
consecutive layers overlap.
Bugs: (1) backup() makes the load stream (through its property) wait on the forward stream,
then copies on the write stream, which nothing orders; (2) load_layers() orders only the
first layer stream, so every odd layer's load runs on a stream that never waited."""

import torch


class HiCacheTransferEngine:
    def __init__(self, layer_num, device_size, host_size, head_num, head_dim, dtype=torch.bfloat16):
        self.layer_num = layer_num
        self.device_k = [
            torch.zeros((device_size, head_num, head_dim), dtype=dtype, device="cuda")
            for _ in range(layer_num)
        ]
        self.host_k = torch.empty((layer_num, host_size, head_num, head_dim), dtype=dtype, pin_memory=True)
        self._streams = {"write": torch.cuda.Stream(), "load": torch.cuda.Stream()}
        self.layer_streams = [torch.cuda.Stream() for _ in range(2)]
        self.layer_ready = [torch.cuda.Event() for _ in range(layer_num)]

    @property
    def write_stream(self):
        return self._streams["write"]

    @property
    def load_stream(self):
        return self._streams["load"]

    def backup(self, host_start, device_start, length):
        self.load_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._streams["write"]):
            for layer in range(self.layer_num):
                # expect: KVG001
                self.host_k[layer, host_start : host_start + length].copy_(
                    self.device_k[layer][device_start : device_start + length], non_blocking=True
                )
        finished = torch.cuda.Event()
        finished.record(self.write_stream)
        return finished

    def load_layers(self, host_start, device_start, length):
        self.layer_streams[0].wait_stream(torch.cuda.current_stream())
        for layer in range(self.layer_num):
            stream = self.layer_streams[layer % 2]
            with torch.cuda.stream(stream):
                # expect: KVG004
                self.device_k[layer][device_start : device_start + length].copy_(
                    self.host_k[layer, host_start : host_start + length], non_blocking=True
                )
                self.layer_ready[layer].record()

    def wait_layer(self, layer):
        torch.cuda.current_stream().wait_event(self.layer_ready[layer])
