"""The worker half of a KV cache connector, in the shape of TensorRT-LLM's PyTorch-backend
KvCacheConnectorWorker: the executor hands every hook the stream the forward pass runs on."""

from abc import ABC, abstractmethod
from typing import Callable, List, Optional, Tuple

import torch


class KvCacheConnectorWorker(ABC):
    def __init__(self):
        self._metadata = None

    def bind_connector_meta(self, metadata) -> None:
        self._metadata = metadata

    def register_forward_pass_callable(self) -> Optional[Callable[[], None]]:
        """Called at the end of the forward pass, on the forward pass's stream."""
        return None

    @abstractmethod
    def register_kv_caches(self, kv_cache_tensor: torch.Tensor) -> None: ...

    @abstractmethod
    def start_load_kv(self, stream: torch.cuda.Stream) -> None: ...

    @abstractmethod
    def save_kv_layer(self, layer_idx: int, stream: torch.cuda.Stream) -> None: ...

    @abstractmethod
    def wait_for_save(self, stream: torch.cuda.Stream) -> None:
        """Called at the end of the forward pass; `stream` is the stream it ran on."""

    @abstractmethod
    def get_finished(self, finished_gen_req_ids: List[int],
                     started_loading_req_ids: List[int]) -> Tuple[List[int], List[int]]: ...
