"""Streaming FFT spectrometer on CuPy with a ring of device slots."""

from cuspec.config import SpectrometerConfig
from cuspec.pipeline import Spectrometer
