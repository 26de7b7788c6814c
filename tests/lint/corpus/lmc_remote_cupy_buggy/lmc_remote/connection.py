from __future__ import annotations

import logging
import socket
import struct
import threading
from urllib.parse import urlparse

logger = logging.getLogger(__name__)

_HEADER = struct.Struct("!IIQ")  # op, key length, payload length
OP_PUT = 1


class RemoteConnection:
    def __init__(self, url: str):
        parsed = urlparse(url)
        self.host = parsed.hostname or "localhost"
        self.port = parsed.port or 65432
        self.sock = socket.create_connection((self.host, self.port))
        self.lock = threading.Lock()

    def send(self, key: str, payload: bytes, crc: int = 0) -> None:
        key_bytes = key.encode()
        with self.lock:
            self.sock.sendall(_HEADER.pack(OP_PUT, len(key_bytes), len(payload)))
            self.sock.sendall(key_bytes)
            self.sock.sendall(struct.pack("!I", crc))
            self.sock.sendall(payload)
        logger.debug("Sent %s (%d bytes) to %s:%d", key, len(payload), self.host, self.port)

    def close(self) -> None:
        self.sock.close()
