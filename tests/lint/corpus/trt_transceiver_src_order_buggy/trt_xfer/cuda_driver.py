# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Batched copies through the driver's cuMemcpyBatchAsync (cuda-python, CUDA >= 12.8)."""

import functools
from enum import IntEnum
from typing import Sequence

from cuda.bindings import driver


class SrcAccessOrder(IntEnum):
    """CUmemcpySrcAccessOrder, spelt so that configs and logs can carry it."""

    STREAM = 1
    DURING_API_CALL = 2
    ANY = 3


def check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error: {err}")
    return rest


@functools.lru_cache(maxsize=None)
def copy_attributes(order: SrcAccessOrder) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder(int(order))
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_copy(dst_ptrs: Sequence[int], src_ptrs: Sequence[int], sizes: Sequence[int],
               order: SrcAccessOrder, stream) -> None:
    if not sizes:
        return
    # expect: KVG002
    check(driver.cuMemcpyBatchAsync(list(dst_ptrs), list(src_ptrs), list(sizes), len(sizes),
                                    [copy_attributes(order)], [0], 1, stream.cuda_stream))
