from flexgen_mt.engine import OffloadedDecoder

__all__ = ["OffloadedDecoder"]
