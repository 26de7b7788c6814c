"""Prompt-cache prefill in the shape of FlexGen: the KV cache of a long shared prompt is
computed layer by layer on the GPU and persisted to a disk tier (numpy memmaps), so that later
generations can start from it. Disk copies go through FlexGen's copy threads, which relay
GPU data through a pinned host buffer on their own CUDA stream."""
