"""A local HTTP server that answers as the read API does (docs/behaviour-rules.md): keys checked first,
then the quota, then the parameters; strong ETags and 304; labels; the error bodies and X-RateLimit-*
headers. Tests change what it holds between calls, hold a request open, or script an answer the real
stack cannot be made to give (a 5xx, a hang, a redirect). The real stack is driven by tests/stack/."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import socket
import threading
import time
from calendar import timegm
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union
from urllib.parse import parse_qs, unquote, urlsplit

UPGRADE_URL = "https://prompts.example.test/upgrade"


def version(number: str, system: str = "System", user: Optional[str] = None, **config: Any) -> Dict[str, Any]:
    """A published version's content, as the API serves it (promptId and promptName are added by add())."""
    return {
        "version": number,
        "systemMessage": system,
        "userMessage": user if user is not None else f"Hello ${{name}}, this is {number}",
        "config": {"model": "gpt-4o-mini", "temperature": 0.5, "schema": [], "inputData": None, "inputDataRootName": None, **config},
    }


class Seen(NamedTuple):
    """One request the server answered."""

    path: str
    headers: Dict[str, str]
    status: int
    query: str = ""

    def line(self) -> str:
        return f"GET {self.path} {self.status}"


class Raw(NamedTuple):
    """A scripted answer: anything, as it goes on the wire."""

    status: int
    body: Union[bytes, str, Any] = b""
    headers: Dict[str, str] = {}


#: A scripted answer, or what the connection does instead: "hang" (until the client gives up) or "drop".
Script = Callable[[str, Dict[str, str]], Union[Raw, str, None]]


class _Key:
    def __init__(self, limit: Optional[int]) -> None:
        self.limit = limit
        self.used = 0
        self.revoked = False


class FakeApi:
    def __init__(self) -> None:
        #: promptId -> {"name", "versions": {version: content}, "labels": {label: version}}
        self.prompts: Dict[str, Dict[str, Any]] = {}
        self.keys: Dict[str, _Key] = {}
        #: (promptId, label) -> {"rolloutId", "percent", "to"}: the label answers each subject by the bucket rule.
        self.rollouts: Dict[Tuple[str, str], Dict[str, Any]] = {}
        self.seen: List[Seen] = []
        self.script: Optional[Script] = None
        #: While set, each request waits for release() before it is answered.
        self._held: Optional[threading.Event] = None
        self.arrived = threading.Semaphore(0)
        self.retry_after: Optional[str] = None
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-api", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def close(self) -> None:
        self._closing.set()
        self.release()
        self._server.shutdown()
        self._server.server_close()

    # What it holds

    def add(self, prompt_id: str, *versions: Dict[str, Any], labels: Optional[Dict[str, str]] = None) -> None:
        with self._lock:
            prompt = self.prompts.setdefault(prompt_id, {"name": prompt_id, "versions": {}, "labels": {}})
            for content in versions:
                prompt["versions"][content["version"]] = content
            prompt["labels"].update(labels or {})

    def delete(self, prompt_id: str) -> None:
        with self._lock:
            del self.prompts[prompt_id]

    def set_label(self, prompt_id: str, label: str, number: Optional[str]) -> None:
        with self._lock:
            labels = self.prompts[prompt_id]["labels"]
            if number is None:
                del labels[label]
            else:
                labels[label] = number

    def roll_out(self, prompt_id: str, label: str, rollout_id: str, to: str, percent: float) -> None:
        with self._lock:
            self.rollouts[(prompt_id, label)] = {"rolloutId": rollout_id, "percent": percent, "to": to}

    def key(self, limit: Optional[int] = None) -> str:
        key = "prs_test_" + secrets.token_urlsafe(24)
        self.keys[key] = _Key(limit)
        return key

    def revoke(self, key: str) -> None:
        self.keys[key].revoked = True

    def served(self, key: Optional[str] = None) -> List[str]:
        """The requests answered (with this key, if given): ``GET /path status``."""
        with self._lock:
            return [seen.line() for seen in self.seen if key is None or seen.headers.get("authorization") == f"Bearer {key}"]

    # Holding requests open

    def hold(self) -> None:
        self._held = threading.Event()

    def release(self) -> None:
        if self._held is not None:
            self._held.set()
        self._held = None

    # Answering

    def answer(self, target: str, headers: Dict[str, str]) -> Tuple[int, Dict[str, str], bytes]:
        held = self._held
        self.arrived.release()
        if held is not None:
            held.wait(30)
        if self.script is not None:
            scripted = self.script(target, headers)
            if scripted == "hang":
                self._closing.wait(60)
                raise ConnectionAbortedError
            if scripted == "drop":
                raise ConnectionAbortedError
            if isinstance(scripted, Raw):
                body = scripted.body
                data = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
                return self._record(target, headers, scripted.status, dict(scripted.headers), data)
        with self._lock:
            return self._record(target, headers, *self._read_api(target, headers))

    def _record(self, target: str, headers: Dict[str, str], status: int, out: Dict[str, str], body: bytes) -> Tuple[int, Dict[str, str], bytes]:
        self.seen.append(Seen(urlsplit(target).path, headers, status, urlsplit(target).query))
        return status, out, body

    def _read_api(self, target: str, headers: Dict[str, str]) -> Tuple[int, Dict[str, str], bytes]:
        parts = urlsplit(target)
        query = {name: values[-1] for name, values in parse_qs(parts.query, keep_blank_values=True).items()}
        authorization = headers.get("authorization", "")
        key = self.keys.get(authorization[len("Bearer ") :]) if authorization.startswith("Bearer ") else None
        if key is None or key.revoked:
            return _error(401, "UNAUTHORIZED", "Invalid API key", {"WWW-Authenticate": 'Bearer realm="prompts", error="invalid_token"'})
        reset = _next_month()
        if key.limit is not None and key.used >= key.limit:
            retry = self.retry_after if self.retry_after is not None else str(max(0, reset - int(time.time())))
            return _error(
                429,
                "USAGE_LIMIT_EXCEEDED",
                "Monthly usage limit exceeded",
                {**_rate(key, reset), "Retry-After": retry},
                usage={"used": key.used, "limit": key.limit},
                upgradeUrl=UPGRADE_URL,
            )
        key.used += 1
        rate = _rate(key, reset)
        label = query.get("label")
        if label is not None and (not _is_label(label) or "version" in query):
            return _error(400, "BAD_REQUEST", "label must be a label name, without version", rate)
        if parts.path == "/prompts":
            listed: List[Dict[str, Any]] = []
            rolling: List[str] = []
            for prompt_id in sorted(self.prompts):
                number = self._resolve(prompt_id, label)
                if number is not None:
                    listed.append(self._at_label(prompt_id, label, number, headers, rolling))
            return _ok(listed, headers, {**rate, **({"X-Prompt-Rollout": rolling[0]} if len(rolling) == 1 else {})})
        prompt_id = unquote(parts.path[len("/prompts/") :]) if parts.path.startswith("/prompts/") else ""
        if prompt_id == "" or "/" in prompt_id:
            return _error(404, "NOT_FOUND", "Not found", rate)
        prompt = self.prompts.get(prompt_id)
        if prompt is None:
            return _error(404, "NOT_FOUND", f"Prompt {prompt_id} not found", rate)
        if "version" in query:
            if query["version"] not in prompt["versions"]:
                return _error(404, "VERSION_NOT_FOUND", f"Version {query['version']} of prompt {prompt_id} not found", rate)
            return _ok(self._body(prompt_id, query["version"]), headers, rate)
        number = self._resolve(prompt_id, label)
        if number is None:
            return _error(404, "LABEL_NOT_FOUND", f"Prompt {prompt_id} has no label {label}", rate)
        rolling: List[str] = []
        body = self._at_label(prompt_id, label, number, headers, rolling)
        return _ok(body, headers, {**rate, **({"X-Prompt-Rollout": rolling[0]} if rolling else {})})

    def _at_label(self, prompt_id: str, label: Optional[str], number: str, headers: Dict[str, str], rolling: List[str]) -> Dict[str, Any]:
        """The label's version, or while it rolls out the side the subject's bucket picks (docs/rollouts.md)."""
        rollout = self.rollouts.get((prompt_id, label)) if label is not None else None
        if rollout is None:
            return self._body(prompt_id, number)
        subject = headers.get("x-prompt-subject")
        bucket = secrets.randbelow(10_000) / 100 if subject is None else server_bucket(rollout["rolloutId"], subject)
        served = rollout["to"] if bucket < rollout["percent"] else number
        rolling.append(rollout["rolloutId"])
        return {**self._body(prompt_id, served), "rollout": {"rolloutId": rollout["rolloutId"], "percent": rollout["percent"], "from": number, "to": rollout["to"]}}

    def _resolve(self, prompt_id: str, label: Optional[str]) -> Optional[str]:
        prompt = self.prompts[prompt_id]
        if label is None or label == "latest":
            return max(prompt["versions"], key=lambda number: tuple(int(part) for part in number.split(".")))
        return prompt["labels"].get(label)

    def _body(self, prompt_id: str, number: str) -> Dict[str, Any]:
        prompt = self.prompts[prompt_id]
        return {"promptId": prompt_id, "promptName": prompt["name"], **prompt["versions"][number]}


def server_bucket(rollout_id: str, subject: str) -> float:
    """The bucket rule as the service states it, written here apart from the client's."""
    return int.from_bytes(hashlib.sha256(f"{rollout_id}:{subject}".encode()).digest()[:4], "big") / 2**32 * 100


def _handler(api: FakeApi) -> type:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            headers = {name.lower(): value for name, value in self.headers.items()}
            try:
                status, out, body = api.answer(self.path, headers)
            except ConnectionAbortedError:
                self.close_connection = True
                return
            self.send_response(status)
            out = {"Content-Type": "application/json", **out} if body else out
            for name, value in out.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the standard library's name
            return

    return Handler


def _ok(body: Any, headers: Dict[str, str], rate: Dict[str, str]) -> Tuple[int, Dict[str, str], bytes]:
    data = json.dumps(body).encode()
    etag = '"' + hashlib.sha256(data).hexdigest()[:27] + '"'
    if headers.get("if-none-match") == etag:
        return 304, {**rate, "ETag": etag}, b""
    return 200, {**rate, "ETag": etag, "Cache-Control": "private, no-cache"}, data


def _error(status: int, code: str, message: str, out: Dict[str, str], **extra: Any) -> Tuple[int, Dict[str, str], bytes]:
    return status, out, json.dumps({"error": message, "code": code, **extra}).encode()


def _rate(key: _Key, reset: int) -> Dict[str, str]:
    if key.limit is None:
        return {}
    return {"X-RateLimit-Limit": str(key.limit), "X-RateLimit-Remaining": str(max(0, key.limit - key.used)), "X-RateLimit-Reset": str(reset)}


def _next_month() -> int:
    now = datetime.now(timezone.utc)
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return timegm((year, month, 1, 0, 0, 0))


def _is_label(text: str) -> bool:
    return re.fullmatch("[a-z][a-z0-9_-]{0,31}", text) is not None


class Clock:
    """Time that moves only when a test moves it: seconds since the epoch."""

    def __init__(self, now: float = 1_795_003_200.0) -> None:  # 2026-11-18T12:00:00Z
        self.now = now

    def __call__(self) -> float:
        return self.now


def dead_url() -> str:
    """A URL at which nothing answers: a port that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class WithFakeApi:
    """For test cases (threaded or asyncio): one server for the class, emptied before each test, a clock
    the test moves, and the requests made with the test's key."""

    api: FakeApi
    key: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.api = FakeApi()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.api.close()

    def setUp(self) -> None:
        while self.api.arrived.acquire(blocking=False):
            pass
        self.api.prompts.clear()
        self.api.rollouts.clear()
        self.api.script = None
        self.api.retry_after = None
        self.clock = Clock()

    def served(self) -> List[str]:
        return self.api.served(self.key)
