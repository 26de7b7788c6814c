"""One class per transfer direction. The base class issues the batched copy; subclasses state how
the driver may order its reads of the source."""

from cuda.bindings import runtime as cudart

from .cudart_utils import check_cudart, make_copy_attributes

_Order = cudart.cudaMemcpySrcAccessOrder


class BlockTransfer:
    name = "copy"
    # read each source in stream order, after the work queued before the copy
    src_access_order = _Order.cudaMemcpySrcAccessOrderStream

    def __init__(self, stream_handle, block_bytes):
        self.stream_handle = stream_handle
        self.block_bytes = block_bytes
        self.attrs = make_copy_attributes(self.src_access_order)

    def __call__(self, dst_ptrs, src_ptrs):
        count = len(dst_ptrs)
        if count == 0:
            return
        sizes = [self.block_bytes] * count
        # expect: KVG002
        check_cudart(cudart.cudaMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, count, [self.attrs], [0], 1,
                                                 self.stream_handle))


class SwapOut(BlockTransfer):
    """Device pool -> pinned host pool."""

    name = "swap_out"
    # the swap stream is ordered behind the compute stream before every swap-out, so the
    # copy engine can pick the blocks up as soon as it likes
    src_access_order = _Order.cudaMemcpySrcAccessOrderAny


class SwapIn(BlockTransfer):
    """Pinned host pool -> device pool. A host block is swapped in only after the host waited
    for the swap-out that wrote it, and nothing else writes host blocks."""

    name = "swap_in"
    src_access_order = _Order.cudaMemcpySrcAccessOrderAny
