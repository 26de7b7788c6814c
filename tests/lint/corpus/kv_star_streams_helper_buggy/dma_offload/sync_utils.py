"""Stream helpers shared by the offload worker: order any number of side streams behind a
producer stream, taking the producer first and the streams as varargs."""


def order_after(producer, *streams):
    for stream in streams:
        stream.wait_stream(producer)


def record_on(*streams):
    events = []
    for stream in streams:
        events.append(stream.record_event())
    return events
