# SPDX-License-Identifier: Apache-2.0
import torch


def fence(consumer: torch.cuda.Stream) -> None:
    """Order `consumer` behind everything queued so far on the calling stream."""
    marker = torch.cuda.current_stream().record_event()
    consumer.wait_event(marker)


def mark(stream: torch.cuda.Stream) -> torch.cuda.Event:
    event = torch.cuda.Event()
    event.record(stream)
    return event
