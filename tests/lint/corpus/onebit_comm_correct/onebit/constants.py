# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
ONEBIT_CUDA_AWARE = "cuda_aware"
ONEBIT_CUDA_AWARE_DEFAULT = False

# sign bits are packed 8 per byte
SIGN_PACK_FACTOR = 8
GATHER_ROOT = 0
