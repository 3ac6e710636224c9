"""One snapshot format: a snapshot written by the TypeScript client serves in the Python client, and one
written by the Python client serves in the TypeScript client (run with node and tsx from the repository,
test/python/support/ts-client.ts), each prompt compiled to the same text by both."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import unittest
from typing import Any, Dict, List, Optional

from prompt_retrieval import PromptClient, PromptClientError

from ..support.fake_api import FakeApi, dead_url, server_bucket, version

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DRIVER = os.path.join("test", "python", "support", "ts-client.ts")
VALUES = {"name": "Ada", "count": 3, "ratio": 0.5, "paid": True}
#: What each client fetches before it takes its snapshot, and asks for once it serves from one.
REQUESTS = ["welcome-email", "welcome-email@1.0.0", "welcome-email#production", "summary", "summary#production"]


def typescript(command: str, base_url: str, file: str, requests: List[str], key: str) -> None:
    node = shutil.which("node")
    if node is None:
        raise AssertionError("node is not on the PATH: the cross-format test drives the TypeScript client with it")
    done = subprocess.run(
        [node, "--import", "tsx", DRIVER, command, base_url, file, *requests],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PROMPTS_API_KEY": key},
    )
    if done.returncode != 0:
        raise AssertionError(f"the TypeScript client exited {done.returncode}: {done.stderr}")
    if command == "serve":
        with open(file + ".served.json", "w", encoding="utf-8") as served:
            served.write(done.stdout)


def python_get(client: PromptClient, request: str) -> Dict[str, Any]:
    target, _, values_text = request.partition("=")
    prompt_id, _, pinned = target.partition("@")
    prompt_id, _, labelled = prompt_id.partition("#")
    label, _, subject = labelled.partition("~")
    try:
        prompt = client.get(prompt_id, version=pinned or None, label=label or None, subject=subject or None)
    except PromptClientError as error:
        return {"request": request, "error": error.code}
    served: Dict[str, Any] = {"request": request, "promptId": prompt.prompt_id, "version": prompt.version, "source": prompt.source}
    if values_text:
        messages = prompt.compile(**json.loads(values_text))
        served["compiled"] = {
            "systemMessage": next((m["content"] for m in messages if m["role"] == "system"), ""),
            "userMessage": messages[-1]["content"],
        }
    return served


class CrossFormat(unittest.TestCase):
    def setUp(self) -> None:
        self.api = FakeApi()
        self.addCleanup(self.api.close)
        self.api.add(
            "welcome-email",
            version("1.0.0", "You write to ${name}.", "Hi ${name}: $${literal}, ${count} seats"),
            version("1.1.0", "", "Hello ${name}, ratio ${ratio}, paid ${paid}", schema=[{"name": "reply", "type": "string"}]),
            labels={"production": "1.0.0"},
        )
        self.api.add("summary", version("2.0.0", user="Sum up for ${name}", inputData={"__proto__": {"x": 1}}), labels={"production": "2.0.0"})
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        self.asked = [f"{request}={json.dumps(self.values_for(request))}" for request in REQUESTS]

    def values_for(self, request: str) -> Dict[str, Any]:
        prompt_id = request.partition("#")[0].partition("@")[0]
        if prompt_id == "summary":
            return {"name": "Ada"}
        return {"name": "Ada", "count": 3} if "1.0.0" in request or "production" in request else {"name": "Ada", "ratio": 0.5, "paid": True}

    def served_by_typescript(self, snapshot_file: str) -> List[Dict[str, Any]]:
        typescript("serve", dead_url(), snapshot_file, self.asked, "prs_any_key_the_app_holds_0000")
        with open(snapshot_file + ".served.json", encoding="utf-8") as file:
            return json.load(file)

    def served_by_python(self, snapshot: Any) -> List[Dict[str, Any]]:
        client = PromptClient(dead_url(), "prs_any_key_the_app_holds_0000", timeout_seconds=2, snapshot=snapshot)
        return [python_get(client, request) for request in self.asked]

    def expected(self, source: Optional[str] = "snapshot") -> List[Dict[str, Any]]:
        return [
            {"request": self.asked[0], "promptId": "welcome-email", "version": "1.1.0", "source": source,
             "compiled": {"systemMessage": "", "userMessage": "Hello Ada, ratio 0.5, paid true"}},
            {"request": self.asked[1], "promptId": "welcome-email", "version": "1.0.0", "source": source,
             "compiled": {"systemMessage": "You write to Ada.", "userMessage": "Hi Ada: ${literal}, 3 seats"}},
            {"request": self.asked[2], "promptId": "welcome-email", "version": "1.0.0", "source": source,
             "compiled": {"systemMessage": "You write to Ada.", "userMessage": "Hi Ada: ${literal}, 3 seats"}},
            {"request": self.asked[3], "promptId": "summary", "version": "2.0.0", "source": source,
             "compiled": {"systemMessage": "System", "userMessage": "Sum up for Ada"}},
            {"request": self.asked[4], "promptId": "summary", "version": "2.0.0", "source": source,
             "compiled": {"systemMessage": "System", "userMessage": "Sum up for Ada"}},
        ]

    def test_a_snapshot_written_by_the_typescript_client_serves_in_the_python_client(self) -> None:
        written = os.path.join(self.folder, "from-typescript.json")
        typescript("take", self.api.url, written, REQUESTS, self.api.key())

        self.assertEqual(self.served_by_python(written), self.expected())

    def test_a_snapshot_written_by_the_python_client_serves_in_the_typescript_client(self) -> None:
        client = PromptClient(self.api.url, self.api.key())
        for request in REQUESTS:
            python_get(client, request)
        written = os.path.join(self.folder, "from-python.json")
        with open(written, "w", encoding="utf-8") as file:
            json.dump(client.snapshot(), file)

        self.assertEqual(self.served_by_typescript(written), self.expected())

    def test_both_clients_write_the_same_snapshot_of_the_same_prompts(self) -> None:
        from_typescript = os.path.join(self.folder, "typescript.json")
        typescript("take", self.api.url, from_typescript, REQUESTS, self.api.key())
        client = PromptClient(self.api.url, self.api.key())
        for request in REQUESTS:
            python_get(client, request)
        with open(from_typescript, encoding="utf-8") as file:
            theirs = json.load(file)
        ours = client.snapshot()

        self.assertEqual({**ours, "createdAt": None}, {**theirs, "createdAt": None})
        self.assertEqual(json.dumps(ours, indent=2, ensure_ascii=False).replace(ours["createdAt"], ""), json.dumps(theirs, indent=2, ensure_ascii=False).replace(theirs["createdAt"], ""))


class CrossRollouts(unittest.TestCase):
    """A label that rolls out, in a snapshot either client wrote: each subject keeps its side in the other."""

    ROLLOUT = "ro_20261127050000000_0a1b2c3d"
    SUBJECTS = [f"user-{number}" for number in range(40)]

    def setUp(self) -> None:
        self.api = FakeApi()
        self.addCleanup(self.api.close)
        self.api.add("welcome-email", version("1.0.0"), version("1.1.0"), labels={"canary": "1.0.0"})
        self.api.roll_out("welcome-email", "canary", self.ROLLOUT, "1.1.0", 50)
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        self.asked = [f"welcome-email#canary~{subject}" for subject in self.SUBJECTS]

    def expected(self) -> List[str]:
        return ["1.1.0" if server_bucket(self.ROLLOUT, subject) < 50 else "1.0.0" for subject in self.SUBJECTS]

    def test_a_snapshot_the_typescript_client_wrote_keeps_each_subject_on_its_side_in_the_python_client(self) -> None:
        written = os.path.join(self.folder, "from-typescript.json")
        typescript("take", self.api.url, written, ["welcome-email#canary~user-1"], self.api.key())

        client = PromptClient(dead_url(), "prs_any_key_the_app_holds_0000", timeout_seconds=2, snapshot=written)
        served = [python_get(client, request) for request in self.asked]

        self.assertEqual([answer.get("version") for answer in served], self.expected())
        self.assertEqual({answer.get("source") for answer in served}, {"snapshot"})

    def test_a_snapshot_the_python_client_wrote_keeps_each_subject_on_its_side_in_the_typescript_client(self) -> None:
        client = PromptClient(self.api.url, self.api.key())
        python_get(client, "welcome-email#canary~user-1")
        written = os.path.join(self.folder, "from-python.json")
        with open(written, "w", encoding="utf-8") as file:
            json.dump(client.snapshot(), file)

        typescript("serve", dead_url(), written, self.asked, "prs_any_key_the_app_holds_0000")
        with open(written + ".served.json", encoding="utf-8") as file:
            served = json.load(file)

        self.assertEqual([answer.get("version") for answer in served], self.expected())

    def test_both_clients_write_the_same_rollout_into_their_snapshots(self) -> None:
        from_typescript = os.path.join(self.folder, "typescript.json")
        typescript("take", self.api.url, from_typescript, ["welcome-email#canary~user-1"], self.api.key())
        client = PromptClient(self.api.url, self.api.key())
        python_get(client, "welcome-email#canary~user-1")
        with open(from_typescript, encoding="utf-8") as file:
            theirs = json.load(file)

        ours = client.snapshot()

        self.assertEqual(ours["rollouts"], {"canary": {"welcome-email": {"rolloutId": self.ROLLOUT, "percent": 50, "from": "1.0.0", "to": "1.1.0"}}})
        self.assertEqual({**ours, "createdAt": None}, {**theirs, "createdAt": None})


if __name__ == "__main__":
    unittest.main()
