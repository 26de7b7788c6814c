from . import _cudart


def order_after(producer_stream, consumer_stream, event) -> None:
    """Make consumer_stream wait for all work currently queued on producer_stream."""
    _cudart.event_record(event, producer_stream)
    _cudart.stream_wait_event(consumer_stream, event)
