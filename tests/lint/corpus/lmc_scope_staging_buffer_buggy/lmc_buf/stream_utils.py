"""Side-stream scope used by the GPU connectors."""

import torch


class SideStreamScope:
    """Make ``side`` the current stream for the block; on exit the caller's stream waits for it.

    With ``order_after_caller`` the side stream first waits for the caller's stream, for blocks
    that touch memory the caller's kernels use."""

    def __init__(self, side: torch.cuda.Stream, order_after_caller: bool = False):
        self.side = side
        self.order_after_caller = order_after_caller
        self._caller = None

    def __enter__(self) -> torch.cuda.Stream:
        self._caller = torch.cuda.current_stream()
        if self.order_after_caller:
            self.side.wait_stream(self._caller)
        torch.cuda.set_stream(self.side)
        return self.side

    def __exit__(self, exc_type, exc, tb) -> bool:
        torch.cuda.set_stream(self._caller)
        self._caller.wait_stream(self.side)
        return False
