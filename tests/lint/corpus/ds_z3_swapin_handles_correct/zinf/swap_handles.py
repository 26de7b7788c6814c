# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Handles of in-flight swap-ins, modelled on the all-gather handles of ZeRO-3."""

from collections import UserDict
from enum import Enum

from deepspeed.accelerator import get_accelerator


class PartitionStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class SwapInHandle:
    """Completion of one swap-in: the compute stream waits on it before the module runs."""

    def __init__(self, param, ring_offset):
        self.param = param
        self.ring_offset = ring_offset
        self.done = get_accelerator().Event()
        self.complete = False

    def wait(self):
        if not self.complete:
            get_accelerator().current_stream().wait_event(self.done)
            self.param.ds_status = PartitionStatus.AVAILABLE
            self.complete = True


class InflightParamRegistry(UserDict):
    """ds_id -> SwapInHandle of the swap-ins issued but not yet waited on."""

    def __setitem__(self, ds_id, handle):
        if ds_id in self.data:
            raise RuntimeError(f"parameter {ds_id} is already being swapped in")
        super().__setitem__(ds_id, handle)
