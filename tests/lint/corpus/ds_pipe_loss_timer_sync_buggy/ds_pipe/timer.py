# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Wall clock timers that optionally synchronize the device to measure device time."""

import time

from deepspeed.accelerator import get_accelerator


class _Timer:

    def __init__(self, name, synchronize):
        self.name = name
        self.synchronize = synchronize
        self.started = False
        self.start_time = 0.0
        self.elapsed_ = 0.0

    def start(self):
        if self.synchronize:
            get_accelerator().synchronize()
        self.start_time = time.time()
        self.started = True

    def stop(self):
        if self.synchronize:
            get_accelerator().synchronize()
        self.elapsed_ += time.time() - self.start_time
        self.started = False

    def elapsed(self, reset=True):
        value = self.elapsed_
        if reset:
            self.elapsed_ = 0.0
        return value


class SynchronizedWallClockTimer:

    def __init__(self, synchronize=True):
        self.synchronize = synchronize
        self.timers = {}

    def __call__(self, name):
        if name not in self.timers:
            self.timers[name] = _Timer(name, self.synchronize)
        return self.timers[name]
