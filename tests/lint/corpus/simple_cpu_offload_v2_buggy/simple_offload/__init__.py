# SPDX-License-Identifier: Apache-2.0
from .connector import SimpleCPUOffloadConnectorWorker
from .worker import SimpleCPUOffloadWorker

__all__ = ["SimpleCPUOffloadConnectorWorker", "SimpleCPUOffloadWorker"]
