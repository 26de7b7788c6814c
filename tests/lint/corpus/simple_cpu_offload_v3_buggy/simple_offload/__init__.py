# SPDX-License-Identifier: Apache-2.0
from simple_offload.worker import SimpleCPUOffloadWorker

__all__ = ["SimpleCPUOffloadWorker"]
