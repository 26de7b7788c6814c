# SPDX-License-Identifier: Apache-2.0
from lmc_retrieve.cache_engine import LayerwiseRetrieveEngine
from lmc_retrieve.gpu_connector import VLLMBufferLayerwiseGPUConnector

__all__ = ["LayerwiseRetrieveEngine", "VLLMBufferLayerwiseGPUConnector"]
