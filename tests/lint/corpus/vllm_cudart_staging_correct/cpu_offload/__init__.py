# SPDX-License-Identifier: Apache-2.0
from .connector import OffloadingConnectorWorker
from .engine import CpuOffloadEngine, LoadJob, StoreJob

__all__ = ["CpuOffloadEngine", "LoadJob", "OffloadingConnectorWorker", "StoreJob"]
