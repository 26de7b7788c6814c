"""kvguard: keep KV-cache offload copies ordered behind the compute stream."""

__version__ = "0.1.0"
