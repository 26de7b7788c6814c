"""Marks the end of each phase of a training iteration with an event on the compute stream."""

import contextlib
import time

import torch


class StepTimeline:
    def __init__(self):
        self._events = {}
        self._wall = {}

    @contextlib.contextmanager
    def phase(self, name):
        start = time.perf_counter()
        try:
            yield
        finally:
            done = torch.cuda.Event()
            done.record()
            self._events[name] = done
            self._wall[name] = time.perf_counter() - start

    def __getitem__(self, name) -> torch.cuda.Event:
        return self._events[name]

    def wall_times(self):
        return dict(self._wall)
