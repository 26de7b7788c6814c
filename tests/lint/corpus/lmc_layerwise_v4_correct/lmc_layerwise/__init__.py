# SPDX-License-Identifier: Apache-2.0
from lmc_layerwise.config import LayerwiseConnectorConfig
from lmc_layerwise.engine import LayerwiseCacheEngine
from lmc_layerwise.gpu_connector import FlatLayerwiseGPUConnector

__all__ = [
    "FlatLayerwiseGPUConnector",
    "LayerwiseCacheEngine",
    "LayerwiseConnectorConfig",
]
