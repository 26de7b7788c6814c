from typing import Any, List


class ValueHolder:
    def __init__(self):
        self.val = None

    def store(self, val: Any) -> None:
        assert self.val is None, "Overwrite a value"
        self.val = val

    def pop(self) -> Any:
        ret = self.val
        self.val = None
        return ret

    def clear(self) -> None:
        self.val = None


def array_1d(a: int, cls) -> List[Any]:
    return [cls() for _ in range(a)]
