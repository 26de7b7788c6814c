"""Moving one layer's KV cache between the GPU working set and its pinned home."""

import torch


def allocate_home(num_layers, shape, dtype):
    return [(torch.empty(shape, dtype=dtype, pin_memory=True), torch.empty(shape, dtype=dtype, pin_memory=True))
            for _ in range(num_layers)]


def store_layer_cache(stream, home, k_gpu, v_gpu, pos, length):
    k_home, v_home = home
    with torch.cuda.stream(stream):
        # expect: KVG001
        k_home[pos:pos + length].copy_(k_gpu[pos:pos + length], non_blocking=True)
        # expect: KVG001
        v_home[pos:pos + length].copy_(v_gpu[pos:pos + length], non_blocking=True)
