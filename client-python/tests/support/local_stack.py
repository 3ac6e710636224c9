"""``npm start`` as a child process, as a developer runs it: every port picked free, a throwaway data
folder, a seed file of the test's own. Its request log (one JSON line per request) is read as it comes,
so a test counts the requests its client made, by key id, as the tests in test/client/ do."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TABLE = "prompts-local"
START_TIMEOUT_SECONDS = 180


def key_id(api_key: str) -> str:
    """The public name the service logs a key by (lambda/domain/api-key.ts)."""
    return "key_" + hashlib.sha256(api_key.encode()).hexdigest()[:16]


class LocalStack:
    def __init__(self, seed: Dict[str, Any]) -> None:
        self.folder = tempfile.mkdtemp(prefix="python-client-stack-")
        seed_path = os.path.join(self.folder, "seed.json")
        with open(seed_path, "w", encoding="utf-8") as file:
            json.dump(seed, file)
        npm = shutil.which("npm")
        if npm is None:
            raise AssertionError("npm is not on the PATH: these tests run the service with npm start")
        self._lines: List[str] = []
        self._changed = threading.Condition()
        environment = {
            **os.environ,
            "PORT": "0",
            "DYNAMODB_PORT": "0",
            "PLAYGROUND_PORT": "0",
            "DASHBOARD_PORT": "0",
            "IDENTITY_PORT": "0",
            "DATA_DIR": os.path.join(self.folder, "data"),
            "SEED_FILE": seed_path,
            "UPGRADE_URL": "https://prompts.example.test/upgrade",
            "AWS_EC2_METADATA_DISABLED": "true",
        }
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
            environment.pop(name, None)
        # A session of its own, so that stop() can reach npm's children even if npm were to leave them.
        self._process = subprocess.Popen(
            [npm, "start"],
            cwd=REPOSITORY,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, name="npm-start-output", daemon=True)
        self._reader.start()
        self.api_url = self._wait_for(r"^\s*API\s+(http://\S+)")
        self.store_url = self._wait_for(r"^\s*Store\s+(http://\S+)")
        self._wait_for(r"(Ctrl\+C stops)")

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            with self._changed:
                self._lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def output(self) -> str:
        with self._changed:
            return "".join(self._lines)

    def _wait_for(self, pattern: str) -> str:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        with self._changed:
            while True:
                found = re.search(pattern, "".join(self._lines), re.MULTILINE)
                if found is not None:
                    return found.group(1)
                if self._process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"npm start did not come up (exit {self._process.returncode}):\n{''.join(self._lines)}")
                self._changed.wait(1)

    def requests_of(self, api_key: str, at_least: int = 0) -> List[str]:
        """The requests the stack served with this key, in order (``GET /path status``), once it has
        logged at least that many: a request's log line may come a moment after its answer."""
        wanted = key_id(api_key)
        deadline = time.monotonic() + 10
        with self._changed:
            while True:
                served: List[str] = []
                for line in self._lines:
                    if '"message":"request"' in line:
                        record = json.loads(line)
                        if record.get("keyId") == wanted:
                            served.append(f"{record['method']} {record['path']} {record['status']}")
                if len(served) >= at_least or time.monotonic() > deadline:
                    return served
                self._changed.wait(0.1)

    def admin(self, *arguments: str) -> Any:
        """The admin CLI against this stack's store (``npm run admin -- ... --json``), its output as JSON."""
        node = shutil.which("node")
        assert node is not None
        done = subprocess.run(
            [node, "--import", "tsx", "bin/admin.ts", *arguments, "--json"],
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "DYNAMODB_ENDPOINT": self.store_url, "TABLE_NAME": TABLE, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"},
        )
        if done.returncode != 0:
            raise AssertionError(f"admin {' '.join(arguments)} exited {done.returncode}: {done.stderr}")
        return json.loads(done.stdout)

    def stop(self) -> Optional[int]:
        """SIGTERM to npm, as a process manager sends it; waits for the stack to be gone."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait(10)
        self._reader.join(10)
        if self._process.stdout is not None:
            self._process.stdout.close()
        return self._process.returncode

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
