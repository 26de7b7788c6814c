"""FlexGen-style general_copy: one helper for every tier-to-tier move."""


def general_copy(dst, dst_indices, src, src_indices):
    if dst_indices is not None:
        dst = dst[dst_indices]
    if src_indices is not None:
        src = src[src_indices]
    dst.copy_(src, non_blocking=True)
