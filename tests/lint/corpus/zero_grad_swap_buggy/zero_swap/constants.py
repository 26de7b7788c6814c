# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

INVALID_BUFFER_INDEX = -1
AIO_ALIGNED_BYTES = 1024
SWAP_FILE_SUFFIX = ".tensor.swp"
DEFAULT_WRITER_THREADS = 2
DEFAULT_BUFFER_COUNT = 4
DEFAULT_BUFFER_NUMEL = 1 << 26

SWAP_OUT_GRADIENT_TIMER = "swap_out_gradient"
ASYNC_SWAPPER_WAIT_TIMER = "async_swap_gradient_wait"
