"""to_gpu / from_gpu helpers in the shape of LMCache's GPU connector: move whole KV blocks
between the paged GPU cache and a pinned staging buffer on the current stream."""


def from_gpu(staging, kv_cache, slots, block_ids):
    for slot, block in zip(slots, block_ids):
        staging[slot].copy_(kv_cache[block], non_blocking=True)
    return len(slots)


def to_gpu(staging, kv_cache, slots, block_ids):
    for slot, block in zip(slots, block_ids):
        kv_cache[block].copy_(staging[slot], non_blocking=True)
    return len(slots)
