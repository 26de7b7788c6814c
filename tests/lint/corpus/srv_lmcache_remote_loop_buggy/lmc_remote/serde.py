"""The naive serializer: a chunk goes over the wire as its raw bytes."""

import numpy as np


class NaiveSerializer:
    def serialize(self, memory_obj) -> bytes:
        # expect: KVG003
        return memory_obj.byte_array.tobytes()

    def deserialize_into(self, payload: bytes, memory_obj) -> None:
        memory_obj.raw_data.numpy()[:] = np.frombuffer(payload, dtype=np.uint8)
