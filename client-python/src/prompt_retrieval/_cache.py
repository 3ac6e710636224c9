"""What the client holds, and what it does with each answer, with no I/O of its own: the threaded client
and the asyncio client both drive it, so they behave alike by construction.

Every method is called with ``lock`` held: a lookup and the registration of the request it needs happen in
one critical section, so two threads never start the same request.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from copy import deepcopy
from typing import Callable, Dict, Generic, List, NamedTuple, Optional, Tuple, TypeVar, Union, cast
from urllib.parse import quote

from ._errors import InvalidOptionsError, PromptClientError, ServiceUnavailableError, UnauthorizedError
from ._http import Answer, NotModified, Ok, Outage, Refused, Subject
from ._prompt import Prompt, PromptCopy, PromptRollout, PromptSource, Quota
from ._snapshot import PromptData, Snapshot, SnapshotRollouts, VersionKey, create_snapshot, prompt_problem
from .rollout import MAX_SUBJECT_LENGTH, RolloutShare, RolloutSide, rollout_of, rollout_problem, side_for

#: Latest is the moving target without a label.
LATEST = ""
#: After an outage, a copy is served this long (at most the TTL) before the API is tried again.
OUTAGE_RETRY_SECONDS = 5.0
_LABEL = re.compile(r"[a-z][a-z0-9_-]{0,31}")

#: What a request fetches, and the key concurrent callers share it by:
#: ("moving", target, promptId), ("version", promptId, version) or ("list", target).
RequestKey = Tuple[str, str, str]
#: What a caller gets: the prompt(s), or the error to raise.
Outcome = Union[Prompt, Tuple[Prompt, ...], PromptClientError]


class Ready(NamedTuple):
    """Answered from memory; ``revalidate`` names the request to make in the background, if any."""

    value: Union[Prompt, Tuple[Prompt, ...]]
    revalidate: Optional[RequestKey]


class Settled(NamedTuple):
    """Answered without a request (after a 429, before the reset)."""

    outcome: Outcome


class Fetch(NamedTuple):
    """The caller must wait for this request."""

    key: RequestKey


class SideFetch(NamedTuple):
    """The side a subject gets is not held yet: the caller waits for it as a pinned version (``key``), then
    ``settle_side`` hands it out."""

    key: RequestKey
    side: RolloutSide


Step = Union[Ready, Settled, Fetch]


class Request(NamedTuple):
    key: RequestKey
    path: str
    etag: Optional[str]
    subject: Subject
    #: What the cache held when the request started: a 304 confirms only that.
    held: object
    #: Who the answer is for, at a label (the X-Prompt-Subject header).
    rollout_subject: Optional[str] = None


class _MovingEntry:
    """A copy that can move: the latest version of a prompt, or the version a label points at."""

    __slots__ = ("copy", "etag", "origin", "via_list", "fresh_until", "rollout", "sides")

    def __init__(
        self,
        copy: PromptCopy,
        etag: Optional[str],
        origin: str,
        via_list: bool,
        fresh_until: float,
        rollout: Optional[RolloutShare] = None,
        previous: Optional[_MovingEntry] = None,
    ) -> None:
        self.copy = copy
        self.etag = etag
        #: "network" or "snapshot"
        self.origin = origin
        #: Its freshness is the list's: it came with GET /prompts (at the same label) and is revalidated with it.
        self.via_list = via_list
        self.fresh_until = fresh_until
        #: The label's rollout as the answer (or the snapshot) gave it: each subject's side is decided from it.
        self.rollout = rollout
        #: By version: the copies of the rollout's sides held so far (``copy`` is one of them), those the
        #: entry it replaces held carried over.
        self.sides: Dict[str, PromptCopy] = {}
        if rollout is not None:
            for number in (rollout.from_version, rollout.to_version):
                held = copy if copy.data["version"] == number else (previous.sides.get(number) if previous is not None else None)
                if held is not None:
                    self.sides[number] = held

    def own_rollout(self) -> Optional[PromptRollout]:
        """The entry's own copy as a side of its rollout, if it has one."""
        return None if self.rollout is None else _as_side(self.rollout, _side_of(self.rollout, self.copy.data["version"]))

    def view(self, fresh: PromptSource = "cache") -> Prompt:
        return self.copy.view("snapshot" if self.origin == "snapshot" else fresh, self.own_rollout())


class _PinnedEntry(NamedTuple):
    copy: PromptCopy
    etag: Optional[str]
    origin: str

    def view(self) -> Prompt:
        return self.copy.view("snapshot" if self.origin == "snapshot" else "cache")


class _ListState:
    __slots__ = ("etag", "ids", "fresh_until")

    def __init__(self, etag: Optional[str], ids: Tuple[str, ...], fresh_until: float) -> None:
        self.etag = etag
        self.ids = ids
        self.fresh_until = fresh_until


F = TypeVar("F")


class Cache(Generic[F]):
    """``F`` is what a driver waits on for a request under way (a thread's flight, an asyncio task)."""

    def __init__(self, ttl_seconds: float, clock: Callable[[], float], max_cached_versions: int, snapshot: Optional[Snapshot]) -> None:
        self.lock = threading.Lock()
        #: Requests under way, by what they fetch: concurrent callers share one.
        self.inflight: Dict[RequestKey, F] = {}
        #: As of the last answer that carried the X-RateLimit-* headers.
        self.quota: Optional[Quota] = None
        self._ttl = ttl_seconds
        self._clock = clock
        self._max_versions = max_cached_versions
        #: By target (LATEST or a label), then by promptId.
        self._moving: Dict[str, Dict[str, _MovingEntry]] = {}
        self._pinned: "OrderedDict[VersionKey, _PinnedEntry]" = OrderedDict()
        #: By target: the whole list (GET /prompts), or the list at a label.
        self._lists: Dict[str, _ListState] = {}
        self._snapshot_latest: Dict[str, PromptCopy] = {}
        self._snapshot_versions: Dict[VersionKey, PromptCopy] = {}
        #: label -> promptId -> version, as the snapshot given says.
        self._snapshot_labels: Dict[str, Dict[str, str]] = {}
        #: label -> promptId -> rollout, as the snapshot given says.
        self._snapshot_rollouts: SnapshotRollouts = {}
        #: By version: a side that could not be fetched is not asked for again before this time.
        self._side_retry_at: Dict[VersionKey, float] = {}
        #: Sides to fetch in the background, learnt from answers: the driver takes them after each request.
        self._wanted: List[RequestKey] = []
        #: After a 429: no request before this time.
        self._blocked_until = 0.0
        self._blocked_error: Optional[PromptClientError] = None
        #: The API's last word on the key was 401: copies are not served until it says otherwise.
        self._unauthorized: Optional[UnauthorizedError] = None
        if snapshot is not None:
            for data in snapshot.prompts:
                copy = PromptCopy(data)
                self._snapshot_latest[data["promptId"]] = copy
                self._snapshot_versions[(data["promptId"], data["version"])] = copy
            for data in snapshot.versions:
                self._snapshot_versions[(data["promptId"], data["version"])] = PromptCopy(data)
            for label, targets in (snapshot.labels or {}).items():
                self._snapshot_labels[label] = dict(targets)
            for label, rollouts in (snapshot.rollouts or {}).items():
                self._snapshot_rollouts[label] = dict(rollouts)

    # Lookups: each says how a call is answered.

    def step_moving(self, prompt_id: str, target: str) -> Step:
        entry = self._moving.get(target, {}).get(prompt_id)
        if entry is not None and self._unauthorized is None:
            now = self._clock()
            revalidate: Optional[RequestKey] = None
            if now >= self._fresh_until(target, entry) and not self._blocked(now):
                revalidate = ("list", target, "") if entry.via_list else ("moving", target, prompt_id)
            return Ready(entry.view(), revalidate)
        if self._unauthorized is None and self._blocked(self._clock()):
            return Settled(self._moving_fallback(prompt_id, target, self._blocked_error))
        return Fetch(("moving", target, prompt_id))

    def step_pinned(self, prompt_id: str, version: str) -> Step:
        if self._unauthorized is None:
            entry = self._pinned_get((prompt_id, version))
            if entry is not None:
                return Ready(entry.view(), None)
            if self._blocked(self._clock()):
                return Settled(self._pinned_fallback(prompt_id, version, self._blocked_error))
        return Fetch(("version", prompt_id, version))

    def step_list(self, target: str) -> Step:
        state = self._lists.get(target)
        if state is not None and self._unauthorized is None:
            now = self._clock()
            revalidate: Optional[RequestKey] = None
            if now >= state.fresh_until and not self._blocked(now):
                revalidate = ("list", target, "")
            return Ready(self._list_views(target, state.ids, "cache"), revalidate)
        if self._unauthorized is None and self._blocked(self._clock()):
            return Settled(self._list_fallback(target, self._blocked_error))
        return Fetch(("list", target, ""))

    # Rollouts: each subject's side, decided from the cache

    def decide(self, prompt_id: str, target: str, subject: Optional[str], prompt: Prompt) -> Union[Prompt, SideFetch]:
        """What a subject gets from the prompt a call came to: itself, or at a rolling-out label the side the
        bucket rule picks, from memory when that side is held; else the pinned version to fetch for it."""
        entry = self._moving.get(target, {}).get(prompt_id) if prompt.rollout is not None else None
        rollout = entry.rollout if entry is not None else None
        if entry is None or rollout is None:
            return prompt
        side = side_for(rollout.rollout_id, rollout.percent, subject)
        number = rollout.version_of(side)
        held = self._side_copy(prompt_id, entry, number)
        if held is not None:
            source = prompt.source if held is entry.copy or entry.origin == "snapshot" else "cache"
            return held.view(source, _as_side(rollout, side))
        now = self._clock()
        if self._side_retry_at.get((prompt_id, number), 0.0) > now or self._blocked(now):
            # That side cannot be had just now and no snapshot holds it: the side held is served, and says so.
            return entry.copy.view(prompt.source, entry.own_rollout())
        return SideFetch(("version", prompt_id, number), side)

    def settle_side(self, prompt_id: str, target: str, fetch: SideFetch, outcome: Outcome, fallback: Prompt) -> Outcome:
        """The side fetched for a subject, kept on the label's entry; or, when it could not be had, the
        side held (a key refused, or the prompt gone, is said as any call would say it)."""
        number = fetch.key[2]
        copy = None if isinstance(outcome, PromptClientError) else self._side_held(prompt_id, number)
        entry = self._moving.get(target, {}).get(prompt_id)
        if copy is not None and entry is not None and entry.rollout is not None:
            return copy.view(outcome.source if isinstance(outcome, Prompt) else "cache", _as_side(entry.rollout, fetch.side))
        if isinstance(outcome, PromptClientError) and outcome.code in ("UNAUTHORIZED", "NOT_FOUND"):
            return outcome
        return fallback

    def missing_sides(self, target: str) -> List[RequestKey]:
        """The sides of the label's rollouts not held yet (preload and snapshot fetch them)."""
        wanted: List[RequestKey] = []
        for prompt_id, entry in self._moving.get(target, {}).items():
            if entry.rollout is not None:
                for number in (entry.rollout.from_version, entry.rollout.to_version):
                    if self._side_copy(prompt_id, entry, number) is None:
                        wanted.append(("version", prompt_id, number))
        return wanted

    def labels(self) -> List[str]:
        return [target for target in self._moving if target != LATEST]

    def take_wanted(self) -> List[RequestKey]:
        """Sides to fetch in the background, learnt from the answers finished so far."""
        wanted, self._wanted = self._wanted, []
        return [key for key in dict.fromkeys(wanted) if key not in self.inflight]

    def _side_copy(self, prompt_id: str, entry: _MovingEntry, number: str) -> Optional[PromptCopy]:
        held = entry.sides.get(number)
        if held is None:
            held = self._side_held(prompt_id, number)
            if held is not None:
                entry.sides[number] = held
        return held

    def _side_held(self, prompt_id: str, number: str) -> Optional[PromptCopy]:
        pinned = self._pinned.get((prompt_id, number))
        return pinned.copy if pinned is not None else self._snapshot_versions.get((prompt_id, number))

    def _prefetch_sides(self, prompt_id: str, entry: _MovingEntry) -> None:
        """A rollout some subjects get each side of: the side not held is fetched in the background."""
        rollout = entry.rollout
        if rollout is None or rollout.percent <= 0 or rollout.percent >= 100:
            return
        for number in (rollout.from_version, rollout.to_version):
            if self._side_copy(prompt_id, entry, number) is None:
                self._wanted.append(("version", prompt_id, number))

    def _keep_side(self, copy: PromptCopy) -> None:
        """A version fetched is kept on every label entry whose rollout has it as a side."""
        prompt_id, number = copy.data["promptId"], copy.data["version"]
        self._side_retry_at.pop((prompt_id, number), None)
        for entries in self._moving.values():
            entry = entries.get(prompt_id)
            if entry is not None and entry.rollout is not None and number in (entry.rollout.from_version, entry.rollout.to_version):
                entry.sides[number] = copy

    # Requests: begin when one starts, finish with its answer.

    def begin(self, key: RequestKey, rollout_subject: Optional[str] = None) -> Request:
        kind, first, second = key
        if kind == "moving":
            target, prompt_id = first, second
            held = self._moving.get(target, {}).get(prompt_id)
            query = "" if target == LATEST else f"?label={quote(target, safe='')}"
            etag = held.etag if held is not None and held.origin == "network" else None
            subject = Subject(prompt_id=prompt_id) if target == LATEST else Subject(prompt_id=prompt_id, label=target)
            path = f"/prompts/{quote(prompt_id, safe='')}{query}"
            return Request(key, path, etag, subject, held, None if target == LATEST else rollout_subject)
        if kind == "version":
            prompt_id, version = first, second
            pinned = self._pinned.get((prompt_id, version))
            path = f"/prompts/{quote(prompt_id, safe='')}?version={quote(version, safe='')}"
            return Request(key, path, pinned.etag if pinned is not None else None, Subject(prompt_id=prompt_id, version=version), pinned)
        target = first
        state = self._lists.get(target)
        path = "/prompts" if target == LATEST else f"/prompts?label={quote(target, safe='')}"
        etag = state.etag if state is not None else None
        return Request(key, path, etag, Subject(label=target or None), state, None if target == LATEST else rollout_subject)

    def finish(self, request: Request, answer: Answer) -> Outcome:
        self._record(answer)
        kind, first, second = request.key
        if kind == "moving":
            return self._finish_moving(first, second, request, answer)
        if kind == "version":
            return self._finish_pinned(first, second, request, answer)
        return self._finish_list(first, request, answer)

    def snapshot(self, latest: Tuple[Prompt, ...]) -> Dict[str, object]:
        """Every prompt at its latest version, every version fetched so far, and where each label fetched
        points: the format every client reads."""
        versions: List[PromptData] = [entry.copy.data for entry in self._pinned.values()]
        versions.extend(copy.data for copy in self._snapshot_versions.values())
        # Where each label pointed (and how it rolled out) as the snapshot given said, then as this client has since learnt.
        labels: Dict[str, Dict[str, str]] = {label: dict(targets) for label, targets in self._snapshot_labels.items()}
        rollouts: SnapshotRollouts = {label: dict(targets) for label, targets in self._snapshot_rollouts.items()}
        for target, entries in self._moving.items():
            if target == LATEST:
                continue
            for prompt_id, entry in entries.items():
                # While it rolls out, the label points at from, whichever side this client happened to be given.
                rollout = entry.rollout
                labels.setdefault(target, {})[prompt_id] = entry.copy.data["version"] if rollout is None else rollout.from_version
                if rollout is not None:
                    rollouts.setdefault(target, {})[prompt_id] = rollout
                else:
                    rollouts.get(target, {}).pop(prompt_id, None)
                versions.append(entry.copy.data)
                versions.extend(side.data for side in entry.sides.values())
        # A copy of its own: the caller may change the dict, the cache's copies must not change with it.
        return deepcopy(create_snapshot([prompt.to_dict() for prompt in latest], versions, self._clock(), labels, rollouts))

    # Moving targets: latest, and labels

    def _entries(self, target: str) -> Dict[str, _MovingEntry]:
        return self._moving.setdefault(target, {})

    def _finish_moving(self, target: str, prompt_id: str, request: Request, answer: Answer) -> Outcome:
        entries = self._entries(target)
        now = self._clock()
        current = entries.get(prompt_id)
        if isinstance(answer, Ok):
            problem = _answer_problem(answer.body, target)
            if problem is not None:
                return self._moving_fallback(prompt_id, target, _unreadable(request.path, problem))
            copy = PromptCopy(answer.body)
            entry = entries[prompt_id] = _MovingEntry(copy, answer.etag, "network", False, now + self._ttl, _rollout_in(answer.body, target), current)
            self._remember_version(copy, answer.etag)
            self._prefetch_sides(prompt_id, entry)
            return entry.view("network")
        if isinstance(answer, NotModified):
            # Only the copy whose tag was sent is confirmed; a newer one may have arrived meanwhile.
            if current is not None and current is request.held:
                current.fresh_until = now + self._ttl
            return current.view() if current is not None else self._moving_fallback(prompt_id, target, None)
        if isinstance(answer, Refused):
            code = answer.error.code
            if code == "NOT_FOUND":
                self._forget(prompt_id)
            if code == "LABEL_NOT_FOUND":
                # The label was removed: the prompt and its other labels stand.
                self._forget_at(target, prompt_id)
            if code == "USAGE_LIMIT_EXCEEDED" or answer.error.status == 429:
                return self._moving_fallback(prompt_id, target, answer.error)
            return answer.error
        if current is not None and not current.via_list:
            current.fresh_until = now + self._outage_retry()
        return self._moving_fallback(prompt_id, target, answer.error)

    def _moving_fallback(self, prompt_id: str, target: str, error: Optional[PromptClientError]) -> Outcome:
        """The cached copy, else the snapshot's, else the error."""
        if self._unauthorized is not None:
            return self._unauthorized
        entry = self._moving.get(target, {}).get(prompt_id)
        if entry is not None:
            return entry.view()
        copy = self._snapshot_copy(prompt_id, target)
        if copy is not None:
            rollout = self._snapshot_rollouts.get(target, {}).get(prompt_id)
            entry = self._entries(target)[prompt_id] = _MovingEntry(copy, None, "snapshot", False, self._clock() + self._outage_retry(), rollout)
            return entry.view()
        what = f"prompt {prompt_id}" if target == LATEST else f"prompt {prompt_id} at label {target}"
        return error or ServiceUnavailableError(f"{what}: no copy to serve")

    def _snapshot_copy(self, prompt_id: str, target: str) -> Optional[PromptCopy]:
        if target == LATEST:
            return self._snapshot_latest.get(prompt_id)
        version = self._snapshot_labels.get(target, {}).get(prompt_id)
        return None if version is None else self._snapshot_versions.get((prompt_id, version))

    def _fresh_until(self, target: str, entry: _MovingEntry) -> float:
        if entry.via_list:
            state = self._lists.get(target)
            return state.fresh_until if state is not None else 0.0
        return entry.fresh_until

    # Pinned versions: published versions never change, so a copy is kept for good (least recently used
    # dropped beyond max_cached_versions).

    def _pinned_get(self, key: VersionKey) -> Optional[_PinnedEntry]:
        entry = self._pinned.get(key)
        if entry is not None:
            self._pinned.move_to_end(key)
        return entry

    def _pinned_set(self, key: VersionKey, entry: _PinnedEntry) -> None:
        self._pinned[key] = entry
        self._pinned.move_to_end(key)
        while len(self._pinned) > self._max_versions:
            self._pinned.popitem(last=False)

    def _finish_pinned(self, prompt_id: str, version: str, request: Request, answer: Answer) -> Outcome:
        key = (prompt_id, version)
        if isinstance(answer, Ok):
            problem = prompt_problem(answer.body)
            if problem is not None:
                return self._pinned_fallback(prompt_id, version, _unreadable(request.path, problem))
            copy = PromptCopy(answer.body)
            self._pinned_set(key, _PinnedEntry(copy, answer.etag, "network"))
            self._keep_side(copy)
            return copy.view("network")
        if isinstance(answer, NotModified):
            held = request.held
            return held.view() if isinstance(held, _PinnedEntry) else self._pinned_fallback(prompt_id, version, None)
        if isinstance(answer, Refused):
            if answer.error.code == "NOT_FOUND":
                self._forget(prompt_id)
            if answer.error.code == "USAGE_LIMIT_EXCEEDED" or answer.error.status == 429:
                return self._pinned_failed(prompt_id, version, answer.error)
            return answer.error
        return self._pinned_failed(prompt_id, version, answer.error)

    def _pinned_failed(self, prompt_id: str, version: str, error: PromptClientError) -> Outcome:
        """A version that could not be fetched: the copy held, else the snapshot's; a rollout's side is then
        not asked for again before the outage pause is over."""
        outcome = self._pinned_fallback(prompt_id, version, error)
        if isinstance(outcome, PromptClientError):
            self._side_retry_at[(prompt_id, version)] = self._clock() + self._outage_retry()
        return outcome

    def _pinned_fallback(self, prompt_id: str, version: str, error: Optional[PromptClientError]) -> Outcome:
        if self._unauthorized is not None:
            return self._unauthorized
        key = (prompt_id, version)
        entry = self._pinned_get(key)
        if entry is not None:
            return entry.view()
        copy = self._snapshot_versions.get(key)
        if copy is not None:
            # A published version never changes, so the snapshot's copy is as good as the API's.
            self._pinned_set(key, _PinnedEntry(copy, None, "snapshot"))
            return copy.view("snapshot")
        return error or ServiceUnavailableError(f"prompt {prompt_id} {version}: no copy to serve")

    def _remember_version(self, copy: PromptCopy, etag: Optional[str]) -> None:
        """A latest (or labelled) copy is also that version's copy: published versions never change."""
        self._pinned_set((copy.data["promptId"], copy.data["version"]), _PinnedEntry(copy, etag, "network"))

    # Whole lists: every prompt at latest, or every prompt at a label

    def _finish_list(self, target: str, request: Request, answer: Answer) -> Outcome:
        now = self._clock()
        if isinstance(answer, Ok):
            body: object = answer.body
            if not isinstance(body, list):
                return self._list_fallback(target, _unreadable(request.path, "must be an array"))
            items: List[object] = list(body)  # pyright: ignore[reportUnknownArgumentType]
            for item in items:
                problem = _answer_problem(item, target)
                if problem is not None:
                    return self._list_fallback(target, _unreadable(request.path, problem))
            copies = [PromptCopy(cast(PromptData, item)) for item in items]  # _answer_problem found each a prompt
            ids = tuple(copy.data["promptId"] for copy in copies)
            # Whatever the list no longer has is deleted or unpublished (or, at a label, no longer carries
            # it): no copy of it may outlive that.
            listed = set(ids)
            entries = self._entries(target)
            for prompt_id in list(entries):
                if prompt_id not in listed:
                    if target == LATEST:
                        self._forget(prompt_id)
                    else:
                        self._forget_at(target, prompt_id)
            for item, copy in zip(items, copies):
                prompt_id = copy.data["promptId"]
                entry = entries[prompt_id] = _MovingEntry(copy, None, "network", True, 0.0, _rollout_in(item, target), entries.get(prompt_id))
                self._remember_version(copy, None)
                self._prefetch_sides(prompt_id, entry)
            self._lists[target] = _ListState(answer.etag, ids, now + self._ttl)
            return self._list_views(target, ids, "network")
        if isinstance(answer, NotModified):
            state = self._lists.get(target)
            if state is not None and state is request.held:
                state.fresh_until = now + self._ttl
            return self._list_views(target, state.ids, "cache") if state is not None else self._list_fallback(target, None)
        if isinstance(answer, Refused):
            if answer.error.code == "USAGE_LIMIT_EXCEEDED" or answer.error.status == 429:
                return self._list_fallback(target, answer.error)
            return answer.error
        state = self._lists.get(target)
        if state is not None:
            state.fresh_until = now + self._outage_retry()
        return self._list_fallback(target, answer.error)

    def _list_fallback(self, target: str, error: Optional[PromptClientError]) -> Outcome:
        """The cached list, else every cached prompt with the snapshot's for the others, else the error."""
        if self._unauthorized is not None:
            return self._unauthorized
        state = self._lists.get(target)
        if state is not None:
            return self._list_views(target, state.ids, "cache")
        from_snapshot = list(self._snapshot_latest) if target == LATEST else list(self._snapshot_labels.get(target, {}))
        if not from_snapshot:
            what = "the prompt list" if target == LATEST else f"the prompt list at label {target}"
            return error or ServiceUnavailableError(f"{what}: no copy to serve")
        entries = self._entries(target)
        for prompt_id in from_snapshot:
            copy = self._snapshot_copy(prompt_id, target)
            if copy is not None and prompt_id not in entries:
                entries[prompt_id] = _MovingEntry(copy, None, "snapshot", True, 0.0, self._snapshot_rollouts.get(target, {}).get(prompt_id))
        ids = tuple(sorted(entries))
        self._lists[target] = _ListState(None, ids, self._clock() + self._outage_retry())
        return self._list_views(target, ids, "cache")

    def _list_views(self, target: str, ids: Tuple[str, ...], fresh: PromptSource) -> Tuple[Prompt, ...]:
        entries = self._moving.get(target, {})
        return tuple(entries[prompt_id].view(fresh) for prompt_id in ids if prompt_id in entries)

    # What every answer teaches

    def _record(self, answer: Answer) -> None:
        if answer.quota is not None:
            self.quota = answer.quota
        if isinstance(answer, Refused) and isinstance(answer.error, UnauthorizedError):
            self._unauthorized = answer.error
        elif _key_accepted(answer):
            self._unauthorized = None
        if isinstance(answer, Refused) and answer.retry_after is not None:
            self._blocked_until = self._clock() + answer.retry_after
            self._blocked_error = answer.error

    def _blocked(self, now: float) -> bool:
        return now < self._blocked_until

    def _outage_retry(self) -> float:
        return min(self._ttl, OUTAGE_RETRY_SECONDS)

    def _forget(self, prompt_id: str) -> None:
        """The prompt is gone (404 NOT_FOUND, or missing from the list): every copy of it goes too, at every label."""
        for target in list(self._moving):
            self._forget_at(target, prompt_id)
        for key in [key for key in self._pinned if key[0] == prompt_id]:
            del self._pinned[key]

    def _forget_at(self, target: str, prompt_id: str) -> None:
        """The prompt no longer carries the label (or is gone): its copy at the label goes."""
        self._moving.get(target, {}).pop(prompt_id, None)
        state = self._lists.get(target)
        if state is not None:
            self._lists[target] = _ListState(state.etag, tuple(i for i in state.ids if i != prompt_id), state.fresh_until)


def label_option(method: str, label: Optional[str]) -> str:
    """``latest`` names what no label does; any other label must be a label name, as the API would refuse it."""
    if label is None or label == "latest":
        return LATEST
    if not isinstance(label, str) or _LABEL.fullmatch(label) is None:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise InvalidOptionsError(f'{method}: label must be 1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter')
    return label


def subject_option(method: str, subject: Optional[str]) -> Optional[str]:
    """Any string up to the API's bound; whether it can travel in a header is the request's concern."""
    if subject is not None and (not isinstance(subject, str) or len(subject) > MAX_SUBJECT_LENGTH):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise InvalidOptionsError(f"{method}: subject must be a string of at most {MAX_SUBJECT_LENGTH} characters")
    return subject


def _answer_problem(value: object, target: str) -> Optional[str]:
    """A prompt, and at a label its rollout (when it has one), the version served being one of its sides."""
    problem = prompt_problem(value)
    if problem is not None or target == LATEST:
        return problem
    rollout = cast(Dict[str, object], value).get("rollout")
    if rollout is None:
        return None
    wrong = rollout_problem(rollout)
    if wrong is not None:
        return f"rollout{': ' if wrong.startswith('must') else '.'}{wrong}"
    share = rollout_of(rollout)
    if cast(Dict[str, object], value).get("version") not in (share.from_version, share.to_version):
        return "rollout: the version served must be its from or its to"
    return None


def _rollout_in(value: object, target: str) -> Optional[RolloutShare]:
    """The rollout of an answer _answer_problem accepted; latest never rolls out."""
    rollout = cast(Dict[str, object], value).get("rollout")
    return None if target == LATEST or rollout is None else rollout_of(rollout)


def _side_of(rollout: RolloutShare, number: str) -> RolloutSide:
    return "to" if number == rollout.to_version else "from"


def _as_side(rollout: RolloutShare, side: RolloutSide) -> PromptRollout:
    return PromptRollout(rollout.rollout_id, rollout.percent, rollout.from_version, rollout.to_version, side)


def request_failed(key: RequestKey, error: BaseException) -> Outcome:
    """A request that raised instead of answering (a bug, or an interrupt): its callers get an outage."""
    return ServiceUnavailableError(f"the {key[0]} request failed: {type(error).__name__}")


def _key_accepted(answer: Answer) -> bool:
    """The API checks the key before the quota and the parameters, so a 200, 304, 400, 404 or quota 429
    means it accepted the key. The gateway's own throttle (429 without a code) and other failures say
    nothing of it."""
    if isinstance(answer, (Ok, NotModified)):
        return True
    if isinstance(answer, Outage):
        return False
    return answer.error.code in ("NOT_FOUND", "VERSION_NOT_FOUND", "LABEL_NOT_FOUND", "BAD_REQUEST", "USAGE_LIMIT_EXCEEDED")


def _unreadable(path: str, problem: str) -> ServiceUnavailableError:
    return ServiceUnavailableError(f"GET {path}: the answer is not a prompt the client can read ({problem})")
