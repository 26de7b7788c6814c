# SPDX-License-Identifier: Apache-2.0
from .spec import BlockIDsLoadStoreSpec, CPULoadStoreSpec, GPULoadStoreSpec
from .worker import CpuGpuOffloadingHandlers, SingleDirectionOffloadingHandler

__all__ = [
    "BlockIDsLoadStoreSpec",
    "CPULoadStoreSpec",
    "CpuGpuOffloadingHandlers",
    "GPULoadStoreSpec",
    "SingleDirectionOffloadingHandler",
]
