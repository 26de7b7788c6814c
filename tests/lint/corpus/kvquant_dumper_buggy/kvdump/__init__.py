"""Debug dumper that snapshots int8-quantised KV caches to disk."""

from .dumper import DumpConfig, KVQuantDumper

__all__ = ["DumpConfig", "KVQuantDumper"]
