"""Socket connection to a generation instance; a block table is sent as a header plus the raw
bytes of the staged blocks."""

import socket
import struct

import torch


class KvConnection:
    def __init__(self, host: str, port: int):
        self.sock = socket.create_connection((host, port))

    def send_blocks(self, request_id: int, staged: torch.Tensor) -> None:
        payload = memoryview(staged.numpy()).cast("B")
        self.sock.sendall(struct.pack("!QQ", request_id, payload.nbytes))
        self.sock.sendall(payload)
