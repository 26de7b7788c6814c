# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import threading
from typing import Dict, Optional

import torch

_lock = threading.Lock()
_offload_streams: Dict[int, torch.cuda.Stream] = {}


def get_offload_stream(device: Optional[int] = None, priority: int = 0) -> torch.cuda.Stream:
    """Return the process-wide offload stream for ``device``, creating it lazily."""
    dev = torch.cuda.current_device() if device is None else device
    with _lock:
        stream = _offload_streams.get(dev)
        if stream is None:
            stream = torch.cuda.Stream(device=dev, priority=priority)
            _offload_streams[dev] = stream
        return stream
