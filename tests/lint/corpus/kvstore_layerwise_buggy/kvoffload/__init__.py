# SPDX-License-Identifier: Apache-2.0
"""Layer-wise KV cache offloading from GPU KV caches into pinned CPU chunks."""

from kvoffload.config import ConnectorConfig
from kvoffload.connector import LayerwiseGPUConnector
from kvoffload.engine import LayerwiseCacheEngine

__all__ = ["ConnectorConfig", "LayerwiseGPUConnector", "LayerwiseCacheEngine"]
