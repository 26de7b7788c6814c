"""Hybrid-engine style RLHF step: the actor's Adam moments are parked in pinned host memory while
the rollout generates (it needs the HBM for its KV cache), and brought back before training."""
