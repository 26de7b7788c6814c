import dataclasses
from typing import Any, Optional


class ValueHolder:
    def __init__(self):
        self.val: Optional[Any] = None

    def store(self, val):
        assert self.val is None, "Overwrite a value"
        self.val = val

    def pop(self):
        ret = self.val
        self.val = None
        return ret

    def clear(self):
        self.val = None


def array_1d(a, cls):
    return [cls() for _ in range(a)]


@dataclasses.dataclass
class Task:
    inputs: Any
    prompt_len: int
    gen_len: int
