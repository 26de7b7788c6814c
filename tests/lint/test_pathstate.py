"""Path states where paths join: the shortcut for one live path gives what the general merge
gives, for every field a path state has."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given
from hypothesis import strategies as st

from kvguard.lint.findings import FlowStep, Span
from kvguard.lint.pathstate import PathState, _merged, _merged_alone, merge_paths
from kvguard.lint.results import PendingCopy
from kvguard.lint.values import StreamEntry

_KEYS = st.sampled_from(["s1", "s2", "t", "e"])
_TIMES = st.integers(-1, 12)
_MAYBE_TIME = st.none() | _TIMES
_STEPS = st.builds(FlowStep, st.just("a.py"), st.integers(1, 9), st.just(1), st.sampled_from(["call", "put"]))
_ACCESS = st.tuples(_TIMES, st.integers(1, 9), _KEYS)
_WHY = st.tuples(_TIMES, st.sampled_from(["a wait skipped", "a blocking read"]))
_ENTRY = st.builds(
    StreamEntry,
    st.just("a.py"),
    st.just(Span(3, 5, 3, 20)),
    _KEYS,
    st.just(("torch.cuda", "")),
    st.just(("f",)),
)
_PENDING = st.builds(
    PendingCopy,
    st.just("a.py"),
    st.integers(1, 9),
    st.just(1),
    st.just("copy_"),
    _KEYS,
    _KEYS,
    _TIMES,
    st.sampled_from(["", "a tolist()"]),
    st.booleans(),
)

# Every field of a path state, with values a run could leave there: a field added to
# PathState without an entry here fails the test, so the shortcut cannot miss it unseen.
_FIELDS = {
    "barriers": st.dictionaries(_KEYS, _TIMES),
    "gaps": st.dictionaries(_KEYS, st.lists(_STEPS, max_size=2).map(tuple)),
    "records": st.dictionaries(_KEYS, st.tuples(st.none(), _TIMES)),
    "writes": st.dictionaries(_KEYS, _ACCESS),
    "reads": st.dictionaries(_KEYS, _ACCESS),
    "synced": _MAYBE_TIME,
    "ordered_all": _MAYBE_TIME,
    "streams": st.just(()),
    "returned": st.just(False),
    "pending": st.dictionaries(_KEYS, _PENDING),
    "issued": st.dictionaries(_KEYS, _TIMES),
    "carried": st.frozensets(st.tuples(st.just("m"), _KEYS)),
    "launched": _TIMES,
    "unrecorded": st.frozensets(_KEYS),
    "default_displaced": st.booleans(),
    "unordered_entries": st.dictionaries(_KEYS, st.tuples(_ENTRY, _TIMES)),
    "maybe_synced": st.none() | _WHY,
    "maybe_ordered": st.dictionaries(_KEYS, _WHY),
    "joined": st.frozensets(st.tuples(_KEYS, _KEYS, _TIMES)),
    "horizons": st.dictionaries(_KEYS, _TIMES),
    "requester": st.sampled_from(["main thread", "copy thread"]),
    "settled": st.dictionaries(_KEYS, _TIMES),
}


def test_every_field_of_a_path_state_is_drawn() -> None:
    assert {f.name for f in fields(PathState)} == _FIELDS.keys()


@given(st.fixed_dictionaries(_FIELDS).map(lambda values: PathState(**values)), st.none() | _STEPS)
def test_one_live_path_merges_as_the_general_merge_merges_it(state: PathState, step: FlowStep | None) -> None:
    assert _merged_alone(state, step) == _merged([state], [step])
    ended = PathState(returned=True)
    assert merge_paths([ended, state], [None, step]) == _merged([state], [step])
