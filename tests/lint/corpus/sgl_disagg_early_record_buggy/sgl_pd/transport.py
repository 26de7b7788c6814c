"""TCP fallback transport to the decode instance."""

import socket
import struct


class TcpKVTransport:
    def __init__(self, decode_addr: str, port: int):
        self.sock = socket.create_connection((decode_addr, port))

    def send(self, bootstrap_room: int, k_view, v_view) -> None:
        k_bytes = k_view.contiguous().numpy().tobytes()
        v_bytes = v_view.contiguous().numpy().tobytes()
        self.sock.sendall(struct.pack("!QQQ", bootstrap_room, len(k_bytes), len(v_bytes)))
        self.sock.sendall(k_bytes)
        self.sock.sendall(v_bytes)
