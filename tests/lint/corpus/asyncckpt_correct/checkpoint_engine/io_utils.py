# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os
from typing import Any, Dict

import torch

from .constants import TMP_SUFFIX


def persist_state_dict(cpu_state: Dict[str, Any], path: str, fsync: bool = True) -> int:
    """Writes a host state dict to ``path`` atomically; returns the file size."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp_path = path + TMP_SUFFIX
    with open(tmp_path, "wb") as fh:
        torch.save(cpu_state, fh)
        if fsync:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(tmp_path, path)
    return os.path.getsize(path)
