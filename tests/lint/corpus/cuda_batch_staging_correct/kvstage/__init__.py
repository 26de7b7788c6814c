# SPDX-License-Identifier: Apache-2.0
"""Pinned host staging of paged KV blocks using CUDA driver batch copies."""

from kvstage.staging import PinnedStagingBackend, StagedEntry

__all__ = ["PinnedStagingBackend", "StagedEntry"]
