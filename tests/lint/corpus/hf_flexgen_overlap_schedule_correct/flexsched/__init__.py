"""A FlexGen-style offloaded decoder: weights and KV cache live in pinned host memory and are
streamed through the GPU one layer ahead of compute."""
