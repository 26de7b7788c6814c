# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
MIN_AIO_BYTES = 1024**2
AIO_ALIGNED_BYTES = 1024
SWAP_FILE_SUFFIX = ".tensor.swp"
OPTIMIZER_SWAP_OUT_TIMER = "optimizer_swap_out_state"
DEFAULT_SWAP_THREADS = 2
