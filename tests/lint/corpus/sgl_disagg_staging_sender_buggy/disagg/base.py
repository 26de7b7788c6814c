"""Interfaces of the KV transfer backends of prefill/decode disaggregation."""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import IntEnum
from typing import List, Optional


class KVPoll(IntEnum):
    Failed = 0
    Bootstrapping = 1
    WaitingForInput = 2
    Transferring = 3
    Success = 4


@dataclass
class KVArgs:
    engine_rank: int
    page_size: int
    num_layers: int
    ib_device: Optional[str] = None
    aux_item_lens: List[int] = field(default_factory=list)


class BaseKVManager(ABC):

    @abstractmethod
    def __init__(self, args: KVArgs, kv_pool, is_prefill: bool):
        ...


class BaseKVSender(ABC):

    @abstractmethod
    def init(self, num_kv_pages: int, aux_index: Optional[int] = None) -> None:
        """Called once the request is bootstrapped, with the number of pages it will send."""

    @abstractmethod
    def send(self, kv_pages: List[int], last_chunk: bool) -> None:
        """Send a chunk of the request's KV pages."""

    @abstractmethod
    def poll(self) -> KVPoll:
        ...

    @abstractmethod
    def failure_exception(self) -> Exception:
        ...
