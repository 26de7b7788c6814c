"""Preemption by swapping: KV blocks of preempted sequences move between the device block pool
and a pinned host block pool in one cudaMemcpyBatchAsync (cuda-python runtime bindings) per
direction and step. Each direction is a small transfer class that fixes its copy attributes."""
