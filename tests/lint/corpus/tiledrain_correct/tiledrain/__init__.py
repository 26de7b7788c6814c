"""Per-tile moment statistics on the GPU, drained to .npy files by a writer thread."""
from tiledrain.pipeline import run_pipeline

__all__ = ["run_pipeline"]
