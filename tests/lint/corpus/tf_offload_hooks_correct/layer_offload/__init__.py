from .attach import attach_layerwise_offload

__all__ = ["attach_layerwise_offload"]
