# SPDX-License-Identifier: Apache-2.0
from .scheduler import TierConnectorMetadata, TierScheduler
from .worker import TierWorker

__all__ = ["TierConnectorMetadata", "TierScheduler", "TierWorker"]
