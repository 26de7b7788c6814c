# SPDX-License-Identifier: Apache-2.0
"""Layer-ahead parameter prefetch from pinned host partitions (ZeRO-Infinity style)."""
from .coordinator import PrefetchCoordinator
from .swapper import AsyncPartitionedParamSwapper, SwapStatus

__all__ = ["PrefetchCoordinator", "AsyncPartitionedParamSwapper", "SwapStatus"]
