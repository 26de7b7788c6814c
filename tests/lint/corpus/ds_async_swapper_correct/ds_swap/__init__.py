# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from ds_swap.async_swapper import AsyncTensorSwapper
from ds_swap.file_writer import SwapFileWriter

__all__ = ["AsyncTensorSwapper", "SwapFileWriter"]
