# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
import functools
from enum import Enum

from deepspeed.accelerator import get_accelerator


class ZeroParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


def instrument_w_nvtx(func):
    """Wrap a method in an NVTX range named after it."""

    @functools.wraps(func)
    def wrapped_fn(*args, **kwargs):
        get_accelerator().range_push(func.__qualname__)
        try:
            return func(*args, **kwargs)
        finally:
            get_accelerator().range_pop()

    return wrapped_fn
