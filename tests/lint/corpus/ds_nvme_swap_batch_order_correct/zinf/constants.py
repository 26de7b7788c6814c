from cuda.bindings.runtime import cudaMemcpySrcAccessOrder as _SrcOrder

AIO_ALIGNED_BYTES = 4096
NUM_SWAP_BUFFERS = 2

# Swap-in reads the pinned swap buffers, which no stream writes: the copy engine may pick them
# up early. Swap-out reads the HBM work buffer that the optimizer step wrote on the compute
# stream: it must be read in stream order, after the swap stream's wait for that step.
SWAP_IN_SRC_ORDER = _SrcOrder.cudaMemcpySrcAccessOrderAny
SWAP_OUT_SRC_ORDER = _SrcOrder.cudaMemcpySrcAccessOrderStream
