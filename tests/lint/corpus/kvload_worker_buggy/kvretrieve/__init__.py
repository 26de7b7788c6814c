# SPDX-License-Identifier: Apache-2.0
"""Asynchronous, layer-wise retrieval of cached KV chunks into paged GPU memory."""

from kvretrieve.connector import LayerwiseRetriever, RetrieverConfig

__all__ = ["LayerwiseRetriever", "RetrieverConfig"]
