"""How the swapper asks the driver to run its batches."""
from dataclasses import dataclass

from cuda.bindings import driver

Order = driver.CUmemcpySrcAccessOrder


@dataclass(frozen=True)
class SwapPolicy:
    # Swap-outs only ever take pages the scheduler has sealed (no more tokens are appended
    # to them), so the driver may capture the source as soon as the batch is submitted.
    swap_out_order: Order = Order.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
    # Pinned host pages are swapped in only once their swap-out has completed, and nothing
    # writes them while a swap-in of them is in flight.
    swap_in_order: Order = Order.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    overlap_with_compute: bool = True
    # fewer pages than this go out as individual cuMemcpy*Async calls
    min_batch: int = 8
