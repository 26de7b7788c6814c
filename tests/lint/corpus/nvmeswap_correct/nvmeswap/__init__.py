# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Swapping of tensors to/from NVMe through pinned buffers, using libcudart directly."""

from nvmeswap.buffers import SwapBufferPool
from nvmeswap.swapper import AsyncTensorSwapper
