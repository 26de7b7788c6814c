"""Generation-logits dumping with numba.cuda kernels and pinned staging."""

from .dumper import DumpConfig, LogitsDumper

__all__ = ["DumpConfig", "LogitsDumper"]
