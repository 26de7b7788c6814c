import json
import socket
import struct


class TcpKvConnection:
    def __init__(self, host: str, port: int, timeout_s: float):
        self._sock = socket.create_connection((host, port), timeout=timeout_s)

    def send(self, header: dict, payload: bytes) -> None:
        meta = json.dumps(header).encode()
        self._sock.sendall(struct.pack("!II", len(meta), len(payload)))
        self._sock.sendall(meta)
        self._sock.sendall(payload)

    def close(self) -> None:
        self._sock.close()
