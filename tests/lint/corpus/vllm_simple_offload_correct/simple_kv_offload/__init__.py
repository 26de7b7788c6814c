# SPDX-License-Identifier: Apache-2.0
from .worker import OffloadStepMetadata, SimpleCPUOffloadWorker

__all__ = ["OffloadStepMetadata", "SimpleCPUOffloadWorker"]
