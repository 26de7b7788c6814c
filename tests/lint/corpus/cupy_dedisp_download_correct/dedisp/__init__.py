"""Incoherent dedispersion of filterbank blocks on the GPU (cupy), with results streamed
back to the host by a background downloader so that the next block can be processed
while the previous one is copied out."""
from .config import DedispConfig
from .pipeline import DedispersionPipeline

__all__ = ["DedispConfig", "DedispersionPipeline"]
