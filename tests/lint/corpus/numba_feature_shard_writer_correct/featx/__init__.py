"""Out-of-core frame features for long recordings with numba-CUDA."""
