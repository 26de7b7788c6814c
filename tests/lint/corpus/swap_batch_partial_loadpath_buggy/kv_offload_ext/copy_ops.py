import functools
from typing import Callable

import torch
from vllm import _custom_ops as ops

CopyFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], None]


def select_copy_fn(gpu_to_cpu: bool) -> CopyFn:
    """The batched copy a handler uses, with its options bound once at init time."""
    # Every transfer stream is ordered before the call and the descriptor tables are
    # filled on the host, so let the driver pipeline the source reads either way.
    return functools.partial(ops.swap_blocks_batch, is_src_access_order_any=True)
