"""Asynchronous continuous batching in the shape of transformers' generation/continuous_batching:
the host prepares batch N+1 while batch N runs, through two host/device IO pairs."""

from cb_async.processor import ContinuousBatchProcessor

__all__ = ["ContinuousBatchProcessor"]
