# SPDX-License-Identifier: Apache-2.0
"""Int8 row-wise KV codec on CuPy with a background file writer."""
from kvcodec.encoder import CupyChunkEncoder, EncodedChunk
from kvcodec.writer import ChunkFileWriter

__all__ = ["ChunkFileWriter", "CupyChunkEncoder", "EncodedChunk"]
