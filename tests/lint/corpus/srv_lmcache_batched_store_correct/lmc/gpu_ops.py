"""Copy helpers in the shape of LMCache's GPU connector ops: gather one chunk of token slots of
every layer's paged KV cache into a host MemoryObj, or scatter it back; each copy runs on the
caller's current stream."""


def from_gpu(memory_obj, kv_caches, start, end):
    for layer, kv in enumerate(kv_caches):
        memory_obj.tensor[layer].copy_(kv[:, start:end], non_blocking=True)


def to_gpu(memory_obj, kv_caches, start, end):
    for layer, kv in enumerate(kv_caches):
        kv[:, start:end].copy_(memory_obj.tensor[layer], non_blocking=True)
