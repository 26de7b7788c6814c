from __future__ import annotations

import logging
from typing import Callable

logger = logging.getLogger(__name__)

LayerHook = Callable[[int, object], None]


class LayerHooks:
    """Tiny registry for per-layer callbacks fired by the executor."""

    def __init__(self) -> None:
        self._post: list[LayerHook] = []

    def register_post_layer(self, hook: LayerHook) -> None:
        self._post.append(hook)

    def fire_post_layer(self, layer_idx: int, stream) -> None:
        for hook in self._post:
            try:
                hook(layer_idx, stream)
            except Exception:
                logger.exception("post-layer hook %r failed on layer %d", hook, layer_idx)
                raise
