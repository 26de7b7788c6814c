from cuda.bindings.runtime import cudaMemcpySrcAccessOrder as _SrcOrder

AIO_ALIGNED_BYTES = 4096
NUM_SWAP_BUFFERS = 2

# The pinned swap buffers belong to the swapper alone, and a batch is only issued once the
# swap stream has waited for the optimizer, so let the copy engine pick the sources up early.
SWAP_IN_SRC_ORDER = _SrcOrder.cudaMemcpySrcAccessOrderAny
SWAP_OUT_SRC_ORDER = _SrcOrder.cudaMemcpySrcAccessOrderAny
