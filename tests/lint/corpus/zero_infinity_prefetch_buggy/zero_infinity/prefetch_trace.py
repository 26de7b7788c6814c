from collections import OrderedDict
from enum import Enum


class TraceMode(Enum):
    RECORD = 1
    COMPLETE = 2
    INVALID = 3


class ModuleTrace:
    """Records the order sub-modules are fetched in during the first forward, then
    answers "which modules come next" for prefetching on later passes."""

    def __init__(self):
        self.mode = TraceMode.RECORD
        self._order = []
        self._step = 0
        self._index = OrderedDict()

    def record(self, module):
        if self.mode == TraceMode.RECORD:
            self._index.setdefault(id(module), len(self._order))
            self._order.append(module)
        elif self.mode == TraceMode.COMPLETE:
            if self._step >= len(self._order) or self._order[self._step] is not module:
                self.mode = TraceMode.INVALID
        self._step += 1

    def next_modules(self, depth):
        if self.mode != TraceMode.COMPLETE:
            return []
        return self._order[self._step:self._step + depth]

    def end_of_forward(self):
        if self.mode == TraceMode.RECORD:
            self.mode = TraceMode.COMPLETE
        elif self.mode == TraceMode.INVALID:
            self._order.clear()
            self._index.clear()
            self.mode = TraceMode.RECORD
        self._step = 0
