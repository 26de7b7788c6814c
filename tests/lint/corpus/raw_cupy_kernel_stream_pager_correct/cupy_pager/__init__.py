from .pager import KVPager

__all__ = ["KVPager"]
