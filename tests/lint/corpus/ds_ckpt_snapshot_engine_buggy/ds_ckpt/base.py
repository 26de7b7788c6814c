# SPDX-License-Identifier: Apache-2.0
"""Interface every checkpoint engine implements."""

import os
from abc import ABC, abstractmethod


class CheckpointEngine(ABC):

    def __init__(self, config_params=None):
        self.config_params = config_params or {}

    def makedirs(self, path, exist_ok=False):
        os.makedirs(path, exist_ok=exist_ok)

    @abstractmethod
    def create(self, tag):
        """Prepare for the files of checkpoint ``tag``."""

    @abstractmethod
    def save(self, state_dict, path: str):
        """Persist ``state_dict`` (may return before the bytes are on disk)."""

    @abstractmethod
    def load(self, path: str, map_location=None):
        """Read a state dict back."""

    @abstractmethod
    def commit(self, tag, latest_path=None):
        """Called once every file of ``tag`` was handed to ``save``; records ``tag`` as the
        latest checkpoint in ``latest_path`` once its files are complete."""

    def wait(self):
        """Block until every pending save has reached storage."""
