# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Tunables for the batched device-to-host parameter drain."""

from cuda.bindings import driver

MAX_BATCH_COPIES = 256
SWAP_OUT_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
SWAP_OUT_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
