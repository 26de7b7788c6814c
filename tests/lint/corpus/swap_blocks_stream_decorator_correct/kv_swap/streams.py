import functools
from typing import Callable, TypeVar

import torch

F = TypeVar("F", bound=Callable)


def run_on_stream(stream_attr: str) -> Callable[[F], F]:
    """Run the decorated method with ``self.<stream_attr>`` as the current stream, behind
    the work the model has queued so far."""

    def decorator(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            stream: torch.cuda.Stream = getattr(self, stream_attr)
            # taken before entering the context: inside it the current stream is `stream`
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                return fn(self, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorator
