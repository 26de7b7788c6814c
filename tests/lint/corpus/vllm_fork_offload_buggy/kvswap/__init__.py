# SPDX-License-Identifier: Apache-2.0
from .connector_worker import CPUOffloadConnectorWorker, SwapMetadata

__all__ = ["CPUOffloadConnectorWorker", "SwapMetadata"]
