# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Export the KV cache of finished requests to files for offline reuse."""
from .exporter import ExportConfig, KvBlockExporter
from .hooks import make_export_hook

__all__ = ["ExportConfig", "KvBlockExporter", "make_export_hook"]
