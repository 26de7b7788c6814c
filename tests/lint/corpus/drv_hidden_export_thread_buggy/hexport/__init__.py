"""Exports the final hidden states of selected requests (for a reward model / embedding
service) without stalling the decode loop: a worker thread copies them to pinned host
memory with the CUDA driver API on a stream of its own."""
from .exporter import HiddenStateExporter

__all__ = ["HiddenStateExporter"]
