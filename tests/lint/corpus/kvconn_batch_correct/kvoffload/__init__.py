# SPDX-License-Identifier: Apache-2.0
from .metadata import OffloadConnectorMetadata, TransferSpec
from .scheduler import OffloadingScheduler
from .worker import OffloadingWorker

__all__ = [
    "OffloadConnectorMetadata",
    "OffloadingScheduler",
    "OffloadingWorker",
    "TransferSpec",
]
