"""Receive delays (in samples) and apodization for a linear array and a pixel grid."""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Probe:
    n_elements: int = 128
    pitch: float = 0.3e-3
    fs: float = 40e6
    c: float = 1540.0
    f_number: float = 1.5


def receive_tables(probe: Probe, xs: np.ndarray, zs: np.ndarray):
    elem_x = (np.arange(probe.n_elements) - (probe.n_elements - 1) / 2) * probe.pitch
    px, pz = np.meshgrid(xs, zs, indexing="xy")
    px = px.reshape(-1, 1)
    pz = pz.reshape(-1, 1)
    dist = pz + np.sqrt((px - elem_x[None, :]) ** 2 + pz ** 2)
    delays = (dist / probe.c * probe.fs).astype(np.float32)
    aperture = pz / probe.f_number
    apod = (np.abs(px - elem_x[None, :]) <= aperture / 2).astype(np.float32)
    return delays, apod
