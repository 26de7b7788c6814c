"""Backend registry: the connector's extra config names the backend class to build."""

from offload_backends.backends import SwapOpBackend, TensorCopyBackend

_BACKENDS = {cls.name: cls for cls in (TensorCopyBackend, SwapOpBackend)}


def create_backend(name, gpu_caches, cpu_caches, store_stream, load_stream):
    try:
        cls = _BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown offload backend {name!r}") from None
    return cls(gpu_caches, cpu_caches, store_stream, load_stream)
