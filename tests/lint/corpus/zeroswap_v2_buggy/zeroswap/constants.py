# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from enum import Enum

PARAM_SWAP_BUFFER_COUNT = 8
PARAM_SWAP_BUFFER_NUMEL = 1 << 24
PREFETCH_BUCKET_SIZE = 2
INVALID_BUFFER_ID = -1

ASYNC_SWAP_IN_TIMER = "param_swap_in"


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3
