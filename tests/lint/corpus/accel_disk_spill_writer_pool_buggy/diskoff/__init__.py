"""Spill the weights of chosen submodules to an offload folder (accelerate's ``.dat`` + ``index.json``
layout) so that they can be reloaded lazily, with the file writes overlapped on a thread pool."""

from .spill import DiskSpiller, spill_modules

__all__ = ["DiskSpiller", "spill_modules"]
