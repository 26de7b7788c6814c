"""Batched Monte Carlo photon energy-deposition tallies on CuPy."""

from mctally.transport import PhotonTallyRunner
