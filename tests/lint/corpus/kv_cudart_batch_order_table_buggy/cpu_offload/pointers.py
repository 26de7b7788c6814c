"""Per-block address lists for a batch: one entry per (layer tensor, block)."""


def block_addresses(src_tensors, dst_tensors, src_blocks, dst_blocks):
    srcs, dsts, sizes = [], [], []
    for src, dst in zip(src_tensors, dst_tensors):
        block_bytes = src[0].numel() * src.element_size()
        src_base, dst_base = src.data_ptr(), dst.data_ptr()
        for s, d in zip(src_blocks, dst_blocks):
            srcs.append(src_base + int(s) * block_bytes)
            dsts.append(dst_base + int(d) * block_bytes)
            sizes.append(block_bytes)
    return srcs, dsts, sizes
