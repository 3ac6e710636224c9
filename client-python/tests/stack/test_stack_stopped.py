"""``npm start`` started, used, then stopped mid-run: what an application sees when the service goes
away. Copies it fetched are served, the snapshot serves what it never fetched, and only what has no copy
anywhere raises, naming the failure."""

from __future__ import annotations

import secrets
import unittest
from datetime import datetime, timezone
from typing import Any, Dict, Optional

from prompt_retrieval import AsyncPromptClient, PromptClient, ServiceUnavailableError

from ..support.fake_api import Clock
from ..support.local_stack import LocalStack

KEY = "prs_python_outage_" + secrets.token_urlsafe(24)


def content(number: str) -> Dict[str, Any]:
    return {
        "version": number,
        "published": True,
        "systemMessage": "",
        "userMessage": f"Hello ${{name}}, this is {number}",
        "config": {"model": "gpt-4o-mini", "temperature": 0.2, "schema": [], "inputData": None, "inputDataRootName": None},
    }


SEED = {
    "accounts": [
        {
            "accountId": "acct_python_outage",
            "name": "Python client outage",
            "plan": "free",
            "keys": [{"apiKey": KEY}],
            "prompts": [
                {"promptId": "cached", "promptName": "Cached", "versions": [content("1.0.0"), content("1.1.0")], "labels": {"production": "1.0.0"}},
                {"promptId": "only-in-snapshot", "promptName": "Only in the snapshot", "versions": [content("3.0.0")]},
                {"promptId": "pinned-in-snapshot", "promptName": "Pinned in the snapshot", "versions": [content("1.0.0"), content("2.0.0")]},
            ],
        }
    ]
}

clock = Clock(datetime.now(timezone.utc).timestamp())
client: PromptClient
snapshot: Dict[str, Any]
base_url: str
stopped_with: Optional[int]


def setUpModule() -> None:
    global client, snapshot, base_url, stopped_with
    stack = LocalStack(SEED)
    try:
        base_url = stack.api_url
        taker = PromptClient(base_url, KEY)
        taker.get("pinned-in-snapshot", version="1.0.0")
        taker.get("cached", label="production")
        snapshot = taker.snapshot()

        client = PromptClient(base_url, KEY, snapshot=snapshot, clock=clock)
        client.get("cached")
        client.get("cached", version="1.0.0")
    finally:
        stopped_with = stack.stop()
        stack.remove()


class StackStopped(unittest.TestCase):
    def test_the_stack_stopped_cleanly_on_sigterm(self) -> None:
        self.assertEqual(stopped_with, 0)

    def test_a_cached_latest_copy_is_served_and_its_failed_revalidation_changes_nothing(self) -> None:
        clock.now += 3600
        first = client.get("cached")
        client.idle()
        again = client.get("cached")

        self.assertEqual((first.version, first.source), ("1.1.0", "cache"))
        self.assertEqual((again.version, again.source), ("1.1.0", "cache"))

    def test_a_cached_pinned_version_is_served(self) -> None:
        pinned = client.get("cached", version="1.0.0")
        self.assertEqual((pinned.version, pinned.source), ("1.0.0", "cache"))

    def test_a_prompt_never_fetched_is_served_from_the_snapshot_and_then_from_memory(self) -> None:
        first = client.get("only-in-snapshot")
        self.assertEqual((first.version, first.source), ("3.0.0", "snapshot"))
        self.assertIs(client.get("only-in-snapshot"), first)

    def test_pinned_versions_and_labels_are_served_from_the_snapshots_copies(self) -> None:
        self.assertEqual(client.get("pinned-in-snapshot", version="1.0.0").source, "snapshot")
        self.assertEqual(client.get("pinned-in-snapshot").version, "2.0.0")
        labelled = client.get("cached", label="production")
        self.assertEqual((labelled.version, labelled.source), ("1.0.0", "snapshot"))

    def test_list_answers_with_every_copy_there_is(self) -> None:
        listed = PromptClient(base_url, KEY, snapshot=snapshot).list()
        self.assertEqual([f"{p.prompt_id} {p.version} {p.source}" for p in listed], ["cached 1.1.0 snapshot", "only-in-snapshot 3.0.0 snapshot", "pinned-in-snapshot 2.0.0 snapshot"])

    def test_what_has_no_copy_anywhere_raises_service_unavailable_naming_the_failure(self) -> None:
        with self.assertRaisesRegex(ServiceUnavailableError, r"^GET /prompts/never-seen: Connection refused \(ECONNREFUSED\)$"):
            client.get("never-seen")
        with self.assertRaises(ServiceUnavailableError):
            client.get("pinned-in-snapshot", version="2.0.1")

    def test_a_client_started_from_the_snapshot_alone_serves_it_and_compiles_it(self) -> None:
        fresh = PromptClient(base_url, KEY, snapshot=snapshot)
        found = fresh.get("cached")
        self.assertEqual((found.version, found.source), ("1.1.0", "snapshot"))
        self.assertEqual(found.compile(name="Ada"), [{"role": "user", "content": "Hello Ada, this is 1.1.0"}])


class AsyncStackStopped(unittest.IsolatedAsyncioTestCase):
    async def test_the_async_client_serves_the_snapshot_too(self) -> None:
        fresh = AsyncPromptClient(base_url, KEY, snapshot=snapshot)
        found = await fresh.get("only-in-snapshot")
        self.assertEqual((found.version, found.source), ("3.0.0", "snapshot"))
        with self.assertRaises(ServiceUnavailableError):
            await fresh.get("never-seen")


if __name__ == "__main__":
    unittest.main()
