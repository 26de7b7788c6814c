# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

SWAP_OUT_PARAM_TIMER = "swap_out_param"
SWAP_WAIT_TIMER = "swap_wait"
SWAP_FILE_SUFFIX = ".tensor.swp"
SWAP_BUFFER_COUNT = 5
SWAP_BUFFER_SIZE = 100_000_000
SWAP_THREAD_COUNT = 2
INVALID_BUFFER_INDEX = -1
