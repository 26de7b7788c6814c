"""How the swapper asks the driver to run its batches."""
from dataclasses import dataclass

from cuda.bindings import driver

Order = driver.CUmemcpySrcAccessOrder


@dataclass(frozen=True)
class SwapPolicy:
    # A sealed page may still have its last tokens' KV writes queued on the compute stream:
    # the swap-out must read it in stream order, behind the compute fence.
    swap_out_order: Order = Order.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    # Pinned host pages are swapped in only once their swap-out has completed, and nothing
    # writes them while a swap-in of them is in flight.
    swap_in_order: Order = Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    overlap_with_compute: bool = True
    # fewer pages than this go out as individual cuMemcpy*Async calls
    min_batch: int = 8
