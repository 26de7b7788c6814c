from .kv_block_offloader import PausedRequestOffloader

__all__ = ["PausedRequestOffloader"]
