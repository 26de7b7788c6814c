"""A length-prefixed key/value protocol over an asyncio stream connection."""

import asyncio
import struct

_PUT, _GET = 1, 2


class LMServerConnector:
    def __init__(self, host, port):
        self.host = host
        self.port = port
        self.reader = None
        self.writer = None
        self.lock = asyncio.Lock()

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def put(self, key: str, payload: bytes) -> None:
        encoded = key.encode()
        async with self.lock:
            self.writer.write(struct.pack("!BII", _PUT, len(encoded), len(payload)))
            self.writer.write(encoded)
            self.writer.write(payload)
            await self.writer.drain()

    async def get(self, key: str) -> bytes:
        encoded = key.encode()
        async with self.lock:
            self.writer.write(struct.pack("!BII", _GET, len(encoded), 0))
            self.writer.write(encoded)
            await self.writer.drain()
            (length,) = struct.unpack("!I", await self.reader.readexactly(4))
            return await self.reader.readexactly(length)
