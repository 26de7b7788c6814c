"""ImageNet training loop with a CUDA-stream data prefetcher (apex examples layout)."""
