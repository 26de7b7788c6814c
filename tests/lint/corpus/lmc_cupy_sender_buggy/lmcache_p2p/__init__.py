# SPDX-License-Identifier: Apache-2.0
from .engine import P2PStoreEngine
from .sender import KVSender

__all__ = ["KVSender", "P2PStoreEngine"]
