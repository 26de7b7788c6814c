# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .grad_offloader import PartitionedGradOffloader
from .async_swapper import AsyncPartitionSwapper
from .buffer_pool import PinnedSwapBufferPool
