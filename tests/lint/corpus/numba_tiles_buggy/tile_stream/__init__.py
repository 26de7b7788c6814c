"""Stream host-resident weight tiles through a small ring of device slots."""
from .config import StreamingConfig
from .pinned import PinnedTileStore
from .runner import TiledMatVec

__all__ = ["PinnedTileStore", "StreamingConfig", "TiledMatVec"]
