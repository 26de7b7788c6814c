"""Chunked GPU Langevin ensembles (numba.cuda)."""

from langevin_gpu.ensemble import EnsembleConfig, LangevinEnsemble
