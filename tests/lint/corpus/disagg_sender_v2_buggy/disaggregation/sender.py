import logging
import socket
import struct
import threading
from dataclasses import dataclass
from typing import Dict, Tuple

import numpy as np

from .constants import HEADER_FORMAT, HEADER_MAGIC, SEND_TIMEOUT_S

logger = logging.getLogger(__name__)


@dataclass
class BlockHeader:
    request_id: int
    num_blocks: int
    block_nbytes: int
    checksum: int = 0

    def pack(self) -> bytes:
        return struct.pack(
            HEADER_FORMAT, HEADER_MAGIC, self.request_id, self.num_blocks, self.block_nbytes, self.checksum
        )


class TcpBlockSender:
    """One connection per generation peer; sends are serialized per peer."""

    def __init__(self) -> None:
        self._conns: Dict[Tuple[str, int], socket.socket] = {}
        self._locks: Dict[Tuple[str, int], threading.Lock] = {}
        self._guard = threading.Lock()

    def _connection(self, peer: Tuple[str, int]) -> Tuple[socket.socket, threading.Lock]:
        with self._guard:
            if peer not in self._conns:
                self._conns[peer] = socket.create_connection(peer, timeout=SEND_TIMEOUT_S)
                self._locks[peer] = threading.Lock()
            return self._conns[peer], self._locks[peer]

    def send_blocks(self, peer: Tuple[str, int], header: BlockHeader, payload: np.ndarray) -> int:
        conn, lock = self._connection(peer)
        with lock:
            conn.sendall(header.pack())
            conn.sendall(memoryview(payload).cast("B"))
        return payload.nbytes

    def close(self) -> None:
        with self._guard:
            for conn in self._conns.values():
                conn.close()
            self._conns.clear()
