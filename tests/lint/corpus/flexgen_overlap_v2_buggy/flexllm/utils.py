import dataclasses
from typing import Any, Optional


@dataclasses.dataclass
class Task:
    inputs: Any
    prompt_len: int
    gen_len: int


class ValueHolder:
    def __init__(self):
        self.val: Optional[Any] = None

    def store(self, val):
        assert self.val is None
        self.val = val

    def pop(self):
        ret = self.val
        self.val = None
        return ret

    def clear(self):
        self.val = None


def array_1d(a, cls):
    return [cls() for _ in range(a)]


def array_2d(a, b, cls):
    return [[cls() for _ in range(b)] for _ in range(a)]
