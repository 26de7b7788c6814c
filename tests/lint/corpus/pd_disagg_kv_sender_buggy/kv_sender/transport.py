import logging
import socket
import struct
import threading

logger = logging.getLogger(__name__)


class TcpTransport:
    """Stand-in for the RDMA path: length-prefixed frames over one TCP connection."""

    def __init__(self, host: str, port: int, timeout_s: float):
        self._addr = (host, port)
        self._timeout_s = timeout_s
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()

    def _connect(self) -> socket.socket:
        if self._sock is None:
            self._sock = socket.create_connection(self._addr, timeout=self._timeout_s)
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self._sock

    def send(self, header: bytes, payload: bytes) -> None:
        with self._lock:
            sock = self._connect()
            try:
                sock.sendall(struct.pack("!I", len(header)) + header)
                sock.sendall(payload)
            except OSError:
                logger.warning("send to %s:%d failed, dropping connection", *self._addr)
                self._sock.close()
                self._sock = None
                raise

    def close(self) -> None:
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
