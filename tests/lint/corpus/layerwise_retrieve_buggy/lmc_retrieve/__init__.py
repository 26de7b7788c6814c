# SPDX-License-Identifier: Apache-2.0
"""Layer-wise KV cache retrieval into paged GPU memory."""

# First Party
from lmc_retrieve.gpu_connector import VLLMBufferLayerwiseGPUConnector
from lmc_retrieve.retriever import LayerwiseRetriever

__all__ = ["LayerwiseRetriever", "VLLMBufferLayerwiseGPUConnector"]
