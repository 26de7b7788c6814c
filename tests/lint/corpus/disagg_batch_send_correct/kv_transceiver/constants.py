# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from cuda.bindings import driver

DEFAULT_STAGING_BYTES = 256 << 20
HEADER_BYTES = 16

# Source access order for the context-side gather (device blocks -> host staging).
SEND_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
# Source access order for the generation-side scatter (host staging -> device blocks).
RECV_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
