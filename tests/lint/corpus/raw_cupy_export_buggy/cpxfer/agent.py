"""Export agent: KV blocks in CuPy device arrays, pinned staging slots."""

import cupy as cp
import cupyx


class KVExportAgent:
    def __init__(self, num_layers, num_blocks, block_shape, num_slots):
        self.compute_stream = cp.cuda.Stream(non_blocking=True)
        self.export_stream = cp.cuda.Stream(non_blocking=True)
        self.kv = [cp.zeros((num_blocks, *block_shape), dtype=cp.float16) for _ in range(num_layers)]
        self.slots = [
            cupyx.empty_pinned((num_layers, *block_shape), dtype=cp.float16) for _ in range(num_slots)
        ]

    def append_kv(self, layer_id, block_ids, new_kv):
        with self.compute_stream:
            self.kv[layer_id][block_ids] = new_kv

    def export_block(self, block_id, slot_id):
        host = self.slots[slot_id]
        with self.export_stream:
            for layer_id, layer in enumerate(self.kv):
                # expect: KVG001
                layer[block_id].get(stream=self.export_stream, out=host[layer_id], blocking=False)
        return self.export_stream.record()
