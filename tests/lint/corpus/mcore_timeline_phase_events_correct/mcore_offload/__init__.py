"""Optimizer-state offloading between training iterations, in the shape of Megatron-Core's RL
colocation path: after the optimizer step, gradients and Adam moments are copied to pinned host
memory on a D2H stream so the rollout engine can use the GPU memory they occupy."""
