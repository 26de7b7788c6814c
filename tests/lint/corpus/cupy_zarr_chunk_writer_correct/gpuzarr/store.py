"""A directory of chunk files plus a JSON metadata document."""
import json
import os


class DirectoryStore:
    def __init__(self, root: str):
        self.root = root
        os.makedirs(root, exist_ok=True)

    def __setitem__(self, key: str, value: bytes) -> None:
        path = os.path.join(self.root, key)
        tmp = path + ".partial"
        with open(tmp, "wb") as f:
            f.write(value)
        os.replace(tmp, path)

    def write_metadata(self, meta: dict) -> None:
        with open(os.path.join(self.root, ".zarray"), "w") as f:
            json.dump(meta, f, indent=2, sort_keys=True)
