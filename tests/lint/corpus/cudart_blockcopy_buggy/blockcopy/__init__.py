"""KV block swap engine built directly on the CUDA runtime bindings."""

from .copier import BlockCopier
from .layout import BlockLayout
from .streams import StreamSet

__all__ = ["BlockCopier", "BlockLayout", "StreamSet"]
