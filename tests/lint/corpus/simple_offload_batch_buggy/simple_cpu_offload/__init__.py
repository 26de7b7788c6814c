# SPDX-License-Identifier: Apache-2.0
"""Simple CPU offload connector (worker side) built on the CUDA batch memcpy API."""

from simple_cpu_offload.worker import SimpleCPUOffloadWorker

__all__ = ["SimpleCPUOffloadWorker"]
