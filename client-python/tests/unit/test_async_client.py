"""AsyncPromptClient, with asyncio, against the local server: the same behaviour as PromptClient, with
concurrent callers as tasks of one event loop."""

from __future__ import annotations

import asyncio
import unittest
from typing import Any, List, Optional

from prompt_retrieval import (
    AsyncPromptClient,
    NotFoundError,
    PromptClient,
    ServiceUnavailableError,
    UnauthorizedError,
    UsageLimitExceededError,
)

from ..support.fake_api import WithFakeApi, dead_url, version

TTL = 60.0


class AsyncClientTests(WithFakeApi, unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.api.add("welcome-email", version("1.0.0", "You write to ${name}.", "Welcome ${name} to ${company}."))

    def client(self, key: Optional[str] = None, **options: Any) -> AsyncPromptClient:
        self.key = key or self.api.key()
        return AsyncPromptClient(self.api.url, self.key, clock=self.clock, **options)

    async def test_the_first_call_waits_for_the_api_and_later_ones_within_the_ttl_are_answered_from_memory(self) -> None:
        client = self.client()

        first = await client.get("welcome-email")
        self.clock.now += TTL - 0.001
        again = await client.get("welcome-email")

        self.assertEqual((first.source, again.source), ("network", "cache"))
        self.assertEqual(first.compile(name="Ada", company="Acme")[0], {"role": "system", "content": "You write to Ada."})
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200"])

    async def test_concurrent_first_calls_as_tasks_share_one_request(self) -> None:
        client = self.client()

        answers = await asyncio.gather(*(client.get("welcome-email") for _ in range(20)))

        self.assertEqual({answer.version for answer in answers}, {"1.0.0"})
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200"])

    async def test_after_the_ttl_the_copy_is_returned_without_waiting_and_revalidated_by_a_task(self) -> None:
        client = self.client(timeout_seconds=60)
        await client.get("welcome-email")
        self.clock.now += TTL
        self.api.hold()
        try:
            # The revalidation is held open at the server, yet the calls have their answer.
            stale = await asyncio.wait_for(asyncio.gather(*(client.get("welcome-email") for _ in range(5))), 30)
        finally:
            self.api.release()
        await client.idle()

        self.assertEqual({answer.source for answer in stale}, {"cache"})
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200", "GET /prompts/welcome-email 304"])

    async def test_one_caller_cancelled_does_not_cancel_the_request_the_others_wait_for(self) -> None:
        client = self.client()
        self.api.hold()
        impatient = asyncio.ensure_future(client.get("welcome-email"))
        patient = asyncio.ensure_future(client.get("welcome-email"))
        await asyncio.sleep(0)
        impatient.cancel()
        self.api.release()

        self.assertEqual((await patient).version, "1.0.0")
        with self.assertRaises(asyncio.CancelledError):
            await impatient
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200"])

    async def test_list_preload_and_labels_are_served_from_memory_after_one_list_request(self) -> None:
        self.api.add("welcome-email", version("1.1.0"), labels={"production": "1.0.0"})
        client = self.client()

        await client.preload(label="production")
        labelled = await client.get("welcome-email", label="production")
        listed = await client.list(label="production")

        self.assertEqual((labelled.version, labelled.source), ("1.0.0", "cache"))
        self.assertEqual([p.prompt_id for p in listed], ["welcome-email"])
        self.assertEqual(self.served(), ["GET /prompts 200"])

    async def test_with_the_service_down_the_snapshot_serves_and_what_has_no_copy_raises(self) -> None:
        snapshot = PromptClient(self.api.url, self.api.key()).snapshot()
        client = AsyncPromptClient(dead_url(), "prs_any_key_the_app_holds_0000", snapshot=snapshot)

        self.assertEqual((await client.get("welcome-email")).source, "snapshot")
        with self.assertRaises(ServiceUnavailableError):
            await client.get("never-seen")
        self.assertEqual([p.prompt_id for p in await client.list()], ["welcome-email"])

    async def test_a_404_raises_not_found_and_401_is_never_hidden_behind_the_cache(self) -> None:
        client = self.client()
        await client.get("welcome-email")
        with self.assertRaises(NotFoundError):
            await client.get("missing")

        self.api.revoke(self.key)
        self.clock.now += TTL
        await client.get("welcome-email")
        await client.idle()
        with self.assertRaises(UnauthorizedError):
            await client.get("welcome-email")

    async def test_after_a_429_no_request_is_made_before_the_reset(self) -> None:
        self.api.retry_after = "120"
        client = self.client(self.api.key(limit=1))
        await client.get("welcome-email")

        for _ in range(3):
            with self.assertRaises(UsageLimitExceededError):
                await client.get("welcome-email", version="1.0.1")
        self.assertEqual(len(self.served()), 2)
        self.clock.now += 120
        with self.assertRaises(UsageLimitExceededError):
            await client.get("welcome-email", version="1.0.1")
        self.assertEqual(len(self.served()), 3)

    async def test_a_call_answered_from_memory_never_gives_up_the_event_loop(self) -> None:
        client = self.client()
        await client.get("welcome-email")
        ran: List[str] = []
        other = asyncio.ensure_future(asyncio.sleep(0))
        other.add_done_callback(lambda _: ran.append("other"))

        for _ in range(100):
            await client.get("welcome-email")

        self.assertEqual(ran, [])
        await other

    async def test_the_http_exchange_runs_off_the_event_loops_thread(self) -> None:
        client = self.client()
        self.api.hold()
        request = asyncio.ensure_future(client.get("welcome-email"))
        while not self.api.arrived.acquire(blocking=False):
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.05)

        # Had the exchange blocked the loop, the request would be over by the time this task ran again.
        self.assertFalse(request.done())
        self.api.release()
        self.assertEqual((await request).version, "1.0.0")


if __name__ == "__main__":
    unittest.main()
