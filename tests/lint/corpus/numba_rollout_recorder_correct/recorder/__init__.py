"""On-policy trainer that records every rollout to disk for offline distillation.

The rollout lives in GPU tensors (GPU-vectorised environments, torch policy). After the
rollout, a recorder worker copies it to pinned host arrays with numba on an export
stream (a torch stream, so that torch events can order it) while the trainer runs the
PPO update, and writes one ``.npz`` per iteration.
"""
from .trainer import OnPolicyTrainer

__all__ = ["OnPolicyTrainer"]
