"""Beam-search cache offload in the shape of transformers' offloaded caches with
``reorder_cache(beam_idx)``: after each beam step the device K/V rows are reordered by the chosen
beams on the compute stream (keys in place through ``copy_``, values through
``torch.index_select(..., out=)`` into a second buffer), the per-beam lengths are reset with
``fill_``, and everything is then copied to pinned host tensors on the offload stream, which
waits on the compute stream after the last of those writes."""

import torch


class BeamOffloadedCache:
    def __init__(self, num_layers, beams, heads, max_len, head_dim, dtype=torch.float16, device="cuda"):
        self.num_layers = num_layers
        shape = (beams, heads, max_len, head_dim)
        self.keys = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.reordered_values = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.lengths = torch.zeros(beams, dtype=torch.int32, device=device)
        self.host_keys = [torch.zeros(shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.host_values = [torch.zeros(shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.host_lengths = torch.zeros(beams, dtype=torch.int32, pin_memory=True)
        self.offload_stream = torch.cuda.Stream()
        self.offloaded = torch.cuda.Event()

    def reorder_and_offload(self, beam_idx, cur_len):
        # the previous offload may still read the buffers rewritten below
        torch.cuda.current_stream().wait_event(self.offloaded)
        for layer in range(self.num_layers):
            self.keys[layer].copy_(self.keys[layer].index_select(0, beam_idx))
            torch.index_select(self.values[layer], 0, beam_idx, out=self.reordered_values[layer])
        self.lengths.fill_(cur_len)
        self.offload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.offload_stream):
            for layer in range(self.num_layers):
                self.host_keys[layer].copy_(self.keys[layer], non_blocking=True)
                self.host_values[layer].copy_(self.reordered_values[layer], non_blocking=True)
            self.host_lengths.copy_(self.lengths, non_blocking=True)
            self.offloaded.record()
        self.keys, self.values, self.reordered_values = self.keys, self.reordered_values, self.values

    def host_lengths_list(self):
        self.offloaded.synchronize()
        return self.host_lengths.tolist()
