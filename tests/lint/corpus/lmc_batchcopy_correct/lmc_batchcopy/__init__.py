# SPDX-License-Identifier: Apache-2.0
from lmc_batchcopy.engine import BatchedStoreEngine
from lmc_batchcopy.offloader import BatchedKVOffloader, OffloadHandle

__all__ = ["BatchedKVOffloader", "BatchedStoreEngine", "OffloadHandle"]
