"""Block address tables for per-layer K and V pools: the helpers return lists, tuples and
dicts of raw addresses computed from the pools' ``data_ptr()``, in the shape engines that
drive the CUDA driver API from Python build them."""


def block_addresses(pool, block_ids, block_bytes):
    base = pool.data_ptr()
    return [base + block * block_bytes for block in block_ids]


def layer_tables(layers, block_ids, block_bytes):
    """{layer index: (K addresses, V addresses)} for the given blocks."""
    table = {}
    for index, (key_pool, value_pool) in enumerate(layers):
        table[index] = (
            block_addresses(key_pool, block_ids, block_bytes),
            block_addresses(value_pool, block_ids, block_bytes),
        )
    return table
