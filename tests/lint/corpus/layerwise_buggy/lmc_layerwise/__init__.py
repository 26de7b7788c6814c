# SPDX-License-Identifier: Apache-2.0
from lmc_layerwise.config import LayerwiseConfig
from lmc_layerwise.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmc_layerwise.retriever import LayerwiseRetriever

__all__ = ["LayerwiseConfig", "LayerwiseRetriever", "VLLMPagedMemLayerwiseGPUConnector"]
