"""Connection to an LMCache server over asyncio streams: header, then the raw object bytes."""

import asyncio
import struct


class LMCServerConnector:
    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = None
        self.writer = None

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def put(self, key: str, memory_obj) -> None:
        if self.writer is None:
            await self.connect()
        encoded = key.encode()
        self.writer.write(struct.pack("!BII", 1, len(encoded), memory_obj.get_size()) + encoded)
        self.writer.write(memory_obj.byte_array)
        await self.writer.drain()
        status = await self.reader.readexactly(1)
        if status != b"\x00":
            raise IOError(f"put {key} failed")
