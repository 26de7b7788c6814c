# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from typing import Any, Callable, Optional

import torch

from .exporter import KvBlockExporter


def make_export_hook(exporter: KvBlockExporter, kv_cache_manager: Any) -> Callable:
    """Build the callback the executor invokes when a request finishes generation."""

    def on_request_finished(request: Any, stream: Optional[torch.cuda.Stream] = None):
        stream = stream if stream is not None else torch.cuda.current_stream()
        block_ptrs = kv_cache_manager.get_block_pointers(request.py_request_id)
        return exporter.export(request.py_request_id, block_ptrs,
                               kv_cache_manager.block_bytes, stream.cuda_stream)

    return on_request_finished
