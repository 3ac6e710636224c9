"""One GET to the read API with the standard library's urllib, already sorted into what the cache does
with its answer. Never raises: every failure is an answer too."""

from __future__ import annotations

import errno
import json
import math
import socket
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from email.message import Message
from email.utils import parsedate_to_datetime
from http.client import HTTPException, HTTPResponse
from typing import IO, Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union, cast

from ._errors import (
    BadRequestError,
    LabelNotFoundError,
    NotFoundError,
    PromptClientError,
    ServiceUnavailableError,
    UnauthorizedError,
    Usage,
    UsageLimitExceededError,
    VersionNotFoundError,
)
from ._prompt import Quota
from ._version import __version__
from .rollout import SUBJECT_HEADER

#: A 429 without a usable Retry-After (the gateway's own throttle sends none): wait this long.
DEFAULT_RETRY_AFTER_SECONDS = 1.0
_CHUNK = 64 * 1024
_USER_AGENT = f"prompt-retrieval-client-python/{__version__}"


class Subject(NamedTuple):
    """What a request is about, so an error can name it."""

    prompt_id: Optional[str] = None
    version: Optional[str] = None
    label: Optional[str] = None


class Ok(NamedTuple):
    body: Any
    etag: Optional[str]
    quota: Optional[Quota]


class NotModified(NamedTuple):
    quota: Optional[Quota]


class Refused(NamedTuple):
    """The API refused (4xx): the answer stands, no copy may stand in for it (but see 429)."""

    error: PromptClientError
    retry_after: Optional[float]
    quota: Optional[Quota]


class Outage(NamedTuple):
    """Network failure, timeout, 5xx or an unreadable answer: copies may stand in."""

    error: ServiceUnavailableError
    quota: Optional[Quota]


Answer = Union[Ok, NotModified, Refused, Outage]


class _Secret:
    """A header value that never shows in a repr, a log record or a traceback's captured locals."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<redacted>"

    __str__ = __repr__


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The API never redirects. urllib would follow a redirect with every header, the key included, to
    wherever it points; a 3xx is instead an answer the client cannot read (an outage: copies serve)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Http:
    def __init__(self, base_url: str, api_key: str, timeout_seconds: float, clock: Callable[[], float]) -> None:
        self._base_url = base_url
        self._authorization = _Secret(f"Bearer {api_key}")
        self._timeout = timeout_seconds
        self._clock = clock
        self._opener = urllib.request.build_opener(_NoRedirects)

    def __repr__(self) -> str:
        return f"Http({self._base_url!r})"

    def get(self, path: str, etag: Optional[str], subject: Subject, rollout_subject: Optional[str] = None) -> Answer:
        """``rollout_subject``: who the answer is for, at a label that may be rolling out (docs/rollouts.md)."""
        try:
            status, headers, text = self._exchange(path, etag, rollout_subject)
        except Exception as error:  # noqa: BLE001 - every failure to get an answer is an outage
            return Outage(ServiceUnavailableError(f"GET {path}: {self._describe(error)}"), None)
        quota = _quota_of(headers)
        if status == 304:
            return NotModified(quota)
        if 200 <= status < 300:
            try:
                return Ok(json.loads(text), headers.get("etag"), quota)
            except ValueError:
                return Outage(ServiceUnavailableError(f"GET {path}: the answer ({status}) is not JSON", status), quota)
        body = _error_body(text)
        error_text = body.get("error")
        message = error_text if isinstance(error_text, str) and error_text != "" else f"GET {path} answered {status}"
        if 300 <= status < 400:
            return Outage(ServiceUnavailableError(f"GET {path}: answered {status}, a redirect the client does not follow", status), quota)
        if status >= 500:
            return Outage(ServiceUnavailableError(message, status), quota)
        if status == 429:
            return self._too_many_requests(headers, body, message, quota)
        return Refused(_refusal(status, body.get("code"), message, subject), None, quota)

    def _exchange(self, path: str, etag: Optional[str], rollout_subject: Optional[str]) -> Tuple[int, Message, str]:
        request = urllib.request.Request(self._base_url + path, method="GET")
        request.add_header("Authorization", self._authorization.reveal())
        request.add_header("Accept", "application/json")
        request.add_header("User-Agent", _USER_AGENT)
        if etag is not None:
            request.add_header("If-None-Match", etag)
        if rollout_subject is not None and _sendable(rollout_subject):
            request.add_header(SUBJECT_HEADER, rollout_subject)
        deadline = time.monotonic() + self._timeout
        try:
            response = cast(HTTPResponse, self._opener.open(request, timeout=self._timeout))
        except urllib.error.HTTPError as answer:
            # urllib raises every status but 2xx; the API's 304, 4xx and 5xx are answers all the same.
            with answer:
                return answer.code, answer.headers, _read(answer, deadline, self._timeout)
        with response:
            return response.status, response.headers, _read(response, deadline, self._timeout)

    def _describe(self, error: BaseException) -> str:
        reason: object = error.reason if isinstance(error, urllib.error.URLError) else error
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return f"no answer within {self._timeout:g} s"
        if isinstance(reason, OSError) and reason.errno is not None:
            name = errno.errorcode.get(reason.errno)
            text = reason.strerror or str(reason)
            return f"{text} ({name})" if name else text
        if isinstance(reason, HTTPException):
            return f"{type(reason).__name__}: {reason}" if str(reason) else type(reason).__name__
        return str(reason) or type(reason).__name__

    def _too_many_requests(self, headers: Message, body: Dict[str, object], message: str, quota: Optional[Quota]) -> Answer:
        now = self._clock()
        retry_after = _retry_after_of(headers.get("retry-after"), now)
        if retry_after is None:
            retry_after = DEFAULT_RETRY_AFTER_SECONDS
        if body.get("code") != "USAGE_LIMIT_EXCEEDED":
            # API Gateway's own throttle (all callers together): short-lived, and not this key's quota.
            return Refused(ServiceUnavailableError(f"The API is throttling requests: {message}", 429), retry_after, quota)
        reset = _number(headers.get("x-ratelimit-reset"))
        resets_at = datetime.fromtimestamp(reset if reset is not None and reset > 0 else now + retry_after, timezone.utc)
        usage = body.get("usage")
        usage_fields = cast(Dict[str, object], usage) if isinstance(usage, dict) else {}
        upgrade_url = body.get("upgradeUrl")
        error = UsageLimitExceededError(
            message,
            Usage(_whole(usage_fields.get("used")), _whole(usage_fields.get("limit"))),
            upgrade_url if isinstance(upgrade_url, str) else "",
            resets_at,
        )
        return Refused(error, retry_after, quota)


def _sendable(subject: str) -> bool:
    """A header carries printable ASCII unchanged through every HTTP stack; other characters would reach the
    service re-encoded, and it would bucket another string. Such a subject is not sent: the client decides
    its side itself, by the same rule, from the rollout the answer carries."""
    return subject != "" and subject.strip() == subject and all(" " <= character <= "~" for character in subject)


def _read(response: IO[bytes], deadline: float, timeout: float) -> str:
    """The body, as text. Each read waits at most the socket timeout; a body that trickles in past the
    deadline is a timeout too."""
    chunks: List[bytes] = []
    while True:
        chunk = response.read(_CHUNK)
        if not chunk:
            break
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise socket.timeout(f"no answer within {timeout:g} s")
    return b"".join(chunks).decode("utf-8", errors="replace")


def _refusal(status: int, code: object, message: str, subject: Subject) -> PromptClientError:
    if status == 401:
        return UnauthorizedError(message)
    if status == 404 and code == "VERSION_NOT_FOUND" and subject.prompt_id is not None and subject.version is not None:
        return VersionNotFoundError(subject.prompt_id, subject.version, message)
    if status == 404 and code == "LABEL_NOT_FOUND" and subject.prompt_id is not None and subject.label is not None:
        return LabelNotFoundError(subject.prompt_id, subject.label, message)
    if status == 404:
        return NotFoundError(subject.prompt_id or "", message)
    if status == 400:
        return BadRequestError(message)
    return PromptClientError("UNEXPECTED_RESPONSE", message, status)


def _error_body(text: str) -> Dict[str, object]:
    try:
        body: object = json.loads(text)
    except ValueError:
        return {}
    return cast(Dict[str, object], body) if isinstance(body, dict) else {}


def _quota_of(headers: Message) -> Optional[Quota]:
    limit = _number(headers.get("x-ratelimit-limit"))
    remaining = _number(headers.get("x-ratelimit-remaining"))
    reset = _number(headers.get("x-ratelimit-reset"))
    if limit is None or remaining is None or reset is None:
        return None
    return Quota(int(limit), int(remaining), datetime.fromtimestamp(reset, timezone.utc))


def _retry_after_of(header: Optional[str], now: float) -> Optional[float]:
    """Retry-After is delay-seconds or an HTTP date (RFC 9110 10.2.3)."""
    if header is None or header.strip() == "":
        return None
    seconds = _number(header)
    if seconds is not None:
        return seconds if seconds >= 0 else None
    try:
        return max(0.0, parsedate_to_datetime(header).timestamp() - now)
    except (TypeError, ValueError, IndexError):
        return None


def _number(text: Optional[str]) -> Optional[float]:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _whole(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else 0
