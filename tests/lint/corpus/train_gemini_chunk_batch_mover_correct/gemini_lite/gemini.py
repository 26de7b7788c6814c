"""Placement policy and the per-operator hook that makes a layer's chunks resident."""

from .chunk_manager import Chunk, ChunkManager


class StaticPlacementPolicy:
    def __init__(self, max_resident):
        self.max_resident = max_resident

    def chunks_to_evict(self, manager, needed):
        overflow = len(manager.resident) + len(needed) - self.max_resident
        victims = [c for cid, c in manager.resident.items() if c not in needed]
        return victims[: max(overflow, 0)]


class GeminiManager:
    def __init__(self, num_chunks, chunk_numel, dtype, max_resident):
        self.chunks = [Chunk(i, chunk_numel, dtype) for i in range(num_chunks)]
        self.manager = ChunkManager(chunk_numel, dtype, max_resident)
        self.policy = StaticPlacementPolicy(max_resident)

    def pre_op(self, chunk_ids):
        needed = [self.chunks[i] for i in chunk_ids if i not in self.manager.resident]
        self.manager.evict(self.policy.chunks_to_evict(self.manager, needed))
        self.manager.fetch(needed)
        return [self.chunks[i].cuda_shard for i in chunk_ids]


def run_layers(gemini, layers, layer_chunks, x):
    for layer, chunk_ids in zip(layers, layer_chunks):
        shards = gemini.pre_op(chunk_ids)
        x = layer(x, shards)
    return x
