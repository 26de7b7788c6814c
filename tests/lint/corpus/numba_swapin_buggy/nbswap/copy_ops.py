def swap_in_blocks(d_cache, block_ids, h_cache, slots, stream) -> None:
    for block_id, slot in zip(block_ids, slots):
        # expect: KVG004
        d_cache[block_id].copy_to_device(h_cache[slot], stream=stream)


def read_lengths(d_lens, h_lens, stream) -> None:
    d_lens.copy_to_host(h_lens, stream=stream)
