import functools
from typing import Callable

import torch
from vllm import _custom_ops as ops

CopyFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], None]


def select_copy_fn(gpu_to_cpu: bool) -> CopyFn:
    """The batched copy a handler uses, with its options bound once at init time."""
    # CPU -> GPU reads pinned host memory that no stream writes, so ANY lets the driver
    # pipeline the source reads. GPU -> CPU reads the live KV cache: keep STREAM order so
    # the reads stay behind the transfer stream's wait on the compute stream.
    return functools.partial(ops.swap_blocks_batch, is_src_access_order_any=not gpu_to_cpu)
