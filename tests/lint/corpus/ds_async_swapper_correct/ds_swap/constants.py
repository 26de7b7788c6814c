# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
INVALID_BUFFER_INDEX = -1
ASYNC_SWAPPER_WAIT_TIMER = 'async_swap_gradient_wait'
SWAP_OUT_GRADIENT_TIMER = 'swap_out_gradient'
SWAP_FILE_SUFFIX = '.tensor.swp'
WRITER_QUEUE_DEPTH = 8
