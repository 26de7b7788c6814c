# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from typing import Any, List

import torch

from tensorrt_llm.executor.result import Logprob


def stash_log_probs(requests: List[Any], log_probs_host: torch.Tensor) -> None:
    """Keep the log-probability of the sampled token on every request that asked for it."""
    # expect: KVG003
    values = log_probs_host.tolist()
    for req, value in zip(requests, values):
        if req.py_return_log_probs:
            req.py_pending_log_prob = value


def flush_log_probs(req: Any, token: int) -> None:
    value = getattr(req, "py_pending_log_prob", None)
    if value is None:
        return
    req.py_result.append_log_probs([{token: Logprob(logprob=value, rank=1)}])
    req.py_pending_log_prob = None
