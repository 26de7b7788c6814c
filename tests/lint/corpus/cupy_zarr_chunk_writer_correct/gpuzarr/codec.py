"""Chunk payload: small header, crc32 of the shuffled bytes, zlib body."""
import struct
import zlib

import numpy

_HEADER = struct.Struct("<4sBBHI")   # magic, version, shuffle item size, zlib level, crc32
MAGIC = b"GZC1"


def encode(host: numpy.ndarray, *, itemsize: int, level: int) -> bytes:
    raw = memoryview(host)           # the pinned staging bytes, not copied
    crc = zlib.crc32(raw)
    body = zlib.compress(raw, level)
    return _HEADER.pack(MAGIC, 1, itemsize, level, crc) + body


def decode(payload: bytes) -> bytes:
    magic, _, _, _, crc = _HEADER.unpack_from(payload)
    if magic != MAGIC:
        raise ValueError("not a GZC1 chunk")
    raw = zlib.decompress(payload[_HEADER.size:])
    if zlib.crc32(raw) != crc:
        raise ValueError("chunk checksum mismatch")
    return raw
