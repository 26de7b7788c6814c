"""vLLM KV-connector (v1 API, worker side) offloading KV blocks to pinned host memory.

Models a connector whose worker saves each layer's blocks right after that
layer's attention (``save_kv_layer``) and loads host blocks back before the
forward pass (``start_load_kv`` / ``wait_for_layer_load``); completion is
reported through ``get_finished`` by polling events.

Bugs:
- ``save_kv_layer`` copies the layer's freshly written blocks on the save
  stream without ordering the save stream behind the compute stream (KVG001).
- ``start_load_kv`` overwrites GPU blocks the scheduler just reassigned while
  the previous step's kernels may still read them: the load stream never waits
  for the compute stream (KVG004).
"""

from .connector import HostKVConnectorWorker
from .metadata import HostKVConnectorMetadata, ReqMeta

__all__ = ["HostKVConnectorWorker", "HostKVConnectorMetadata", "ReqMeta"]
