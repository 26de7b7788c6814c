# SPDX-License-Identifier: Apache-2.0
from kv_offload.handlers import CpuGpuOffloadingHandlers
from kv_offload.worker import OffloadingWorker

__all__ = ["CpuGpuOffloadingHandlers", "OffloadingWorker"]
