# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Host-memory KV cache offload connector for the PyTorch backend."""

from .config import HostOffloadConfig
from .worker import HostOffloadConnectorWorker, HostOffloadMetadata

__all__ = ["HostOffloadConfig", "HostOffloadConnectorWorker", "HostOffloadMetadata"]
