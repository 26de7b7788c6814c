# SPDX-License-Identifier: Apache-2.0
from lmc_retrieve.config import RetrieverConfig
from lmc_retrieve.retriever import AsyncKVRetriever, RetrieveHandle, RetrieveRequest

__all__ = ["AsyncKVRetriever", "RetrieveHandle", "RetrieveRequest", "RetrieverConfig"]
