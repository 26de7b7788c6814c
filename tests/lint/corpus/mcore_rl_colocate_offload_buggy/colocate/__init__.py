"""Colocated RL training and rollout on the same GPUs, in the shape of the Megatron-core actor
workers of verl / NeMo-RL: before the rollout engine wakes up, the training model's
parameter buffers and the distributed optimizer's Adam states are copied to pinned host memory
on an offload stream and their device storage is released; after the rollout they come back."""
