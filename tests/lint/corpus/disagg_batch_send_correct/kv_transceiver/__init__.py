# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Host-staged KV cache exchange between context and generation executors."""
from .transceiver import HostStagedKvTransceiver

__all__ = ["HostStagedKvTransceiver"]
