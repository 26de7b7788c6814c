# SPDX-License-Identifier: Apache-2.0
from .backend import FileStash
from .scheduler import StashMetadata, StashScheduler
from .worker import StashWorker

__all__ = ["FileStash", "StashMetadata", "StashScheduler", "StashWorker"]
