# SPDX-License-Identifier: Apache-2.0
from .transceiver import CacheTransceiverConfig, PyCacheSender

__all__ = ["CacheTransceiverConfig", "PyCacheSender"]
