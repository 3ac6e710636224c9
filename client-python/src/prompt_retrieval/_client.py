"""PromptClient: the cache driven from threads. A call answered from memory takes the lock for a lookup
and returns; a call that must wait shares the request any other thread already has under way; background
revalidations run on daemon threads, one per request, and never hold up a call."""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Any, Callable, Dict, Generic, List, Mapping, NamedTuple, Optional, Tuple, TypeVar, Union
from urllib.parse import urlsplit

from ._cache import LATEST, Cache, Fetch, Outcome, Ready, RequestKey, Settled, Step, label_option, request_failed, subject_option
from ._errors import InvalidOptionsError, PromptClientError, fresh
from ._http import Http
from ._prompt import Prompt, Quota
from ._snapshot import read_snapshot

DEFAULT_TTL_SECONDS = 60.0
DEFAULT_TIMEOUT_SECONDS = 5.0
DEFAULT_MAX_CACHED_VERSIONS = 1000

#: A file path, or what ``snapshot()`` returns.
SnapshotSource = Union[str, "os.PathLike[str]", Mapping[str, Any]]


class _Flight:
    """One request under way, and what it came to once it has."""

    __slots__ = ("done", "outcome")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.outcome: Optional[Outcome] = None


F = TypeVar("F")


class ClientBase(Generic[F]):
    """What both clients share: their options, read and checked once, the HTTP they speak and the cache
    they drive (``F``: what a caller waits on for a request under way)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        snapshot: Optional[SnapshotSource] = None,
        *,
        clock: Optional[Callable[[], float]] = None,
        max_cached_versions: int = DEFAULT_MAX_CACHED_VERSIONS,
    ) -> None:
        self._base_url = _base_url_of(base_url)
        if not isinstance(api_key, str) or api_key.strip() == "":  # pyright: ignore[reportUnnecessaryIsInstance]
            raise InvalidOptionsError("api_key: must be a non-empty string")
        ttl = _number_option("ttl_seconds", ttl_seconds, 0)
        timeout = _number_option("timeout_seconds", timeout_seconds, 0.001)
        max_versions = int(_number_option("max_cached_versions", max_cached_versions, 1))
        clock = clock or time.time
        self._http = Http(self._base_url, api_key, timeout, clock)
        self._cache: Cache[F] = Cache(ttl, clock, max_versions, read_snapshot(snapshot) if snapshot is not None else None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._base_url!r})"

    @property
    def quota(self) -> Optional[Quota]:
        """The key's monthly quota as of the last answer that carried it; None before any."""
        return self._cache.quota


class PromptClient(ClientBase[_Flight]):
    """Prompts from the prompt retrieval service, cached in memory, revalidated in the background, served
    from a copy when the service fails or the quota is used up. Thread-safe: share one per process.

    ``PromptClient(base_url, api_key, ttl_seconds=60, timeout_seconds=5, snapshot=None, *, clock=None,
    max_cached_versions=1000)``. ``snapshot`` is a file path, or the dict ``snapshot()`` returns: copies to
    serve when the API cannot be reached and nothing is cached. ``clock`` (seconds since the epoch, default
    ``time.time``) is for tests and simulations.
    """

    def get(self, prompt_id: str, version: Optional[str] = None, label: Optional[str] = None, *, subject: Optional[str] = None) -> Prompt:
        """The prompt at its latest version; with ``version``, that published version (fetched once, then
        kept for good); with ``label``, the version the label points at (cached and revalidated like
        latest). Only the very first call for a prompt waits for the network.

        ``subject`` (a user or session id, at most 256 characters): while the label rolls out, the side the
        bucket rule picks for it, decided from the cache (docs/rollouts.md)."""
        target = validated_get(prompt_id, version, label)
        subject = subject_option("get", subject)
        cache = self._cache
        with cache.lock:
            plan = self._plan(cache.step_moving(prompt_id, target) if version is None else cache.step_pinned(prompt_id, version))
        prompt = prompt_of(self._carry_out(plan, subject))
        return prompt if version is not None else self._decided(prompt_id, target, subject, prompt)

    def list(self, label: Optional[str] = None, *, subject: Optional[str] = None) -> List[Prompt]:
        """Every prompt at its latest version, in one request, filling the cache for each; with a label,
        the prompts that carry it, each at the version it points at (at a label that rolls out, the side
        ``subject`` gets)."""
        target = label_option("list", label)
        subject = subject_option("list", subject)
        with self._cache.lock:
            plan = self._plan(self._cache.step_list(target))
        return [self._decided(prompt.prompt_id, target, subject, prompt) for prompt in prompts_of(self._carry_out(plan, subject))]

    def preload(self, label: Optional[str] = None) -> None:
        """``list()`` for its effect: every prompt cached (and from then on revalidated as a whole) in one
        request, and both sides of every rollout at the label, so that ``get`` is answered from memory."""
        target = label_option("preload", label)
        with self._cache.lock:
            plan = self._plan(self._cache.step_list(target))
        prompts_of(self._carry_out(plan))
        self._complete_sides(target)

    def snapshot(self) -> Dict[str, Any]:
        """Every prompt at its latest version, every version fetched so far, and where each label fetched
        points (with both sides of each rollout), as the snapshot format's JSON (a dict: ``json.dump`` it)."""
        latest = tuple(self.list())
        with self._cache.lock:
            labels = self._cache.labels()
        for target in labels:
            self._complete_sides(target)
        with self._cache.lock:
            return self._cache.snapshot(latest)

    def idle(self, timeout: Optional[float] = None) -> bool:
        """Waits until no request is under way, background revalidations included; False if ``timeout``
        seconds passed first. For tests, and for runtimes that freeze a process between invocations."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._cache.lock:
                flights = list(self._cache.inflight.values())
            if not flights:
                return True
            for flight in flights:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not flight.done.wait(left):
                    return False

    # Driving the cache

    def _decided(self, prompt_id: str, target: str, subject: Optional[str], prompt: Prompt) -> Prompt:
        """The prompt a call came to, made the side its subject gets when the label rolls out."""
        if prompt.rollout is None:
            return prompt
        cache = self._cache
        with cache.lock:
            decision = cache.decide(prompt_id, target, subject, prompt)
            if isinstance(decision, Prompt):
                return decision
            plan = self._plan(Fetch(decision.key))
        outcome = self._carry_out(plan)
        with cache.lock:
            settled = cache.settle_side(prompt_id, target, decision, outcome, prompt)
        return prompt_of(settled)

    def _complete_sides(self, target: str) -> None:
        """Both sides of every rollout at the label held, as far as the API can be reached."""
        with self._cache.lock:
            plans = [self._plan(Fetch(key)) for key in self._cache.missing_sides(target)]
        for plan in plans:
            self._carry_out(plan)

    def _plan(self, step: Step) -> _Plan:
        """With the lock held: what the call comes to, with the requests it needs registered as under way."""
        if isinstance(step, Ready):
            key = step.revalidate
            if key is None or key in self._cache.inflight:
                return _Plan(step.value, None, None)
            flight = self._cache.inflight[key] = _Flight()
            return _Plan(step.value, key, flight)
        if isinstance(step, Settled):
            return _Plan(step.outcome, None, None)
        under_way = self._cache.inflight.get(step.key)
        if under_way is not None:
            return _Plan(None, None, under_way)
        flight = self._cache.inflight[step.key] = _Flight()
        return _Plan(None, step.key, flight)

    def _carry_out(self, plan: _Plan, subject: Optional[str] = None) -> Outcome:
        """Without the lock: a revalidation starts on a thread of its own and the answer in memory is
        returned at once; a request this call must wait for runs on the caller's thread, or is waited on."""
        if plan.outcome is not None:
            if plan.key is not None and plan.flight is not None:
                self._in_background(plan.key, plan.flight, subject)
            return plan.outcome
        assert plan.flight is not None
        if plan.key is not None:
            self._run(plan.key, plan.flight, subject)
        plan.flight.done.wait()
        assert plan.flight.outcome is not None
        return plan.flight.outcome

    def _in_background(self, key: RequestKey, flight: _Flight, subject: Optional[str] = None) -> None:
        threading.Thread(target=self._run, args=(key, flight, subject), name="prompt-retrieval-revalidate", daemon=True).start()

    def _run(self, key: RequestKey, flight: _Flight, subject: Optional[str] = None) -> None:
        cache = self._cache
        # The sides of a rollout the answer taught, fetched in the background once this request is done.
        sides: List[Tuple[RequestKey, _Flight]] = []
        try:
            with cache.lock:
                request = cache.begin(key, subject)
            answer = self._http.get(request.path, request.etag, request.subject, request.rollout_subject)
            with cache.lock:
                flight.outcome = cache.finish(request, answer)
                for wanted in cache.take_wanted():
                    sides.append((wanted, cache.inflight.setdefault(wanted, _Flight())))
        except BaseException as error:
            # Outcomes are answers, never exceptions; this is a bug or an interrupt. Its waiters get an
            # outage, and an interrupt goes on to the thread it interrupted.
            flight.outcome = request_failed(key, error)
            if not isinstance(error, Exception):
                raise
        finally:
            with cache.lock:
                del cache.inflight[key]
            flight.done.set()
        for wanted, side_flight in sides:
            self._in_background(wanted, side_flight)


class _Plan(NamedTuple):
    #: The answer, when the call has one without waiting.
    outcome: Optional[Outcome]
    #: A request to run: in the background when there is an outcome, else on the caller's thread.
    key: Optional[RequestKey]
    flight: Optional[_Flight]


def validated_get(prompt_id: str, version: Optional[str], label: Optional[str]) -> str:
    """The target of a get (LATEST or a label), once its arguments are known to make sense."""
    if not isinstance(prompt_id, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise InvalidOptionsError("get: prompt_id must be a string")
    target = label_option("get", label)
    if version is not None:
        if not isinstance(version, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise InvalidOptionsError("get: version must be a string")
        if target != LATEST:
            raise InvalidOptionsError("get: give version or label, not both")
    return target


def prompt_of(outcome: Outcome) -> Prompt:
    if isinstance(outcome, PromptClientError):
        raise fresh(outcome)
    assert isinstance(outcome, Prompt)
    return outcome


def prompts_of(outcome: Outcome) -> List[Prompt]:
    if isinstance(outcome, PromptClientError):
        raise fresh(outcome)
    assert isinstance(outcome, tuple)
    return list(outcome)


def _base_url_of(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidOptionsError("base_url: must be a string")
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if parts is None or not parts.scheme or not parts.netloc:
        raise InvalidOptionsError(f'base_url: must be an absolute http or https URL, got "{value}"')
    if parts.scheme not in ("http", "https"):
        raise InvalidOptionsError(f'base_url: must be an http or https URL, got "{value}"')
    return value.rstrip("/")


def _number_option(name: str, value: object, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < minimum:
        raise InvalidOptionsError(f"{name}: must be a number, {minimum:g} or more")
    return float(value)
