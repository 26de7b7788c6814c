"""vLLM KV-connector (v1 API, worker side) offloading KV blocks to pinned host memory.

Models a connector whose worker saves each layer's blocks right after that
layer's attention (``save_kv_layer``) and loads host blocks back before the
forward pass (``start_load_kv`` / ``wait_for_layer_load``); completion is
reported through ``get_finished`` by polling events.

The save stream waits on an event recorded on the compute stream after the layer's
attention, and the load stream waits for the compute stream before the blocks
the scheduler reassigned are overwritten.
"""

from .connector import HostKVConnectorWorker
from .metadata import HostKVConnectorMetadata, ReqMeta

__all__ = ["HostKVConnectorWorker", "HostKVConnectorMetadata", "ReqMeta"]
