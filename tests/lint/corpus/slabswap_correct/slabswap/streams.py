from dataclasses import dataclass

import cupy


@dataclass
class StreamSet:
    compute: cupy.cuda.Stream
    d2h: cupy.cuda.Stream
    h2d: cupy.cuda.Stream

    @classmethod
    def create(cls, device_id: int = 0) -> "StreamSet":
        with cupy.cuda.Device(device_id):
            return cls(
                compute=cupy.cuda.Stream(non_blocking=True),
                d2h=cupy.cuda.Stream(non_blocking=True),
                h2d=cupy.cuda.Stream(non_blocking=True),
            )

    @staticmethod
    def order(waiter: cupy.cuda.Stream, producer: cupy.cuda.Stream) -> cupy.cuda.Event:
        event = producer.record()
        waiter.wait_event(event)
        return event
