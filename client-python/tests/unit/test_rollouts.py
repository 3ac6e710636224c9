"""Rollouts in PromptClient (docs/rollouts.md): each subject's side decided from the cache by the bucket
rule, against a local server that answers a label that rolls out as the service does."""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from typing import Any, List

from prompt_retrieval import AsyncPromptClient, InvalidOptionsError, PromptClient

from ..support.fake_api import Raw, Seen, WithFakeApi, dead_url, server_bucket, version

TTL = 60.0
ROLLOUT = "ro_20261127050000000_0a1b2c3d"
SUBJECTS = [f"user-{number}" for number in range(1000)]


def expected(subject: str, percent: float) -> str:
    return "2.0.0" if server_bucket(ROLLOUT, subject) < percent else "1.0.0"


class RolloutTestCase(WithFakeApi, unittest.TestCase):
    def client(self, **options: Any) -> PromptClient:
        self.key = self.api.key()
        client = PromptClient(self.api.url, self.key, clock=self.clock, **options)
        self.addCleanup(client.idle, 10)
        return client

    def requests(self) -> List[Seen]:
        """The requests made with this test's key, with their headers."""
        return [seen for seen in self.api.seen if seen.headers.get("authorization") == f"Bearer {self.key}"]

    def rolling(self, percent: float = 30) -> None:
        self.api.add("welcome-email", version("1.0.0", user="Hi ${name}"), version("2.0.0", user="Hello ${name}"), labels={"production": "1.0.0"})
        self.api.roll_out("welcome-email", "production", ROLLOUT, "2.0.0", percent)


class Sides(RolloutTestCase):
    def test_each_subject_gets_the_side_its_bucket_picks(self) -> None:
        self.rolling()
        client = self.client()

        got = {subject: client.get("welcome-email", label="production", subject=subject) for subject in SUBJECTS[:300]}

        for subject, prompt in got.items():
            self.assertEqual(prompt.version, expected(subject, 30), subject)
            assert prompt.rollout is not None
            self.assertEqual(prompt.rollout.side, "to" if prompt.version == "2.0.0" else "from")
            self.assertEqual((prompt.rollout.rollout_id, prompt.rollout.percent, prompt.rollout.from_version, prompt.rollout.to_version), (ROLLOUT, 30, "1.0.0", "2.0.0"))
        self.assertEqual({prompt.version for prompt in got.values()}, {"1.0.0", "2.0.0"})

    def test_a_warm_client_makes_no_request_per_subject(self) -> None:
        self.rolling()
        client = self.client()
        client.get("welcome-email", label="production", subject="warm-up")
        client.idle()
        before = len(self.served())

        got = [client.get("welcome-email", label="production", subject=subject) for subject in SUBJECTS]
        client.idle()

        self.assertEqual(before, 2)
        self.assertEqual(len(self.served()), before)
        self.assertTrue(all(prompt.version == expected(subject, 30) for subject, prompt in zip(SUBJECTS, got)))
        self.assertEqual({prompt.source for prompt in got}, {"cache"})

    def test_the_other_side_is_fetched_once_as_a_pinned_version(self) -> None:
        self.rolling()
        client = self.client()

        client.get("welcome-email", label="production", subject="warm-up")
        client.idle()

        self.assertEqual([(seen.path, seen.query, seen.status) for seen in self.requests()], [
            ("/prompts/welcome-email", "label=production", 200),
            ("/prompts/welcome-email", f"version={'1.0.0' if expected('warm-up', 30) == '2.0.0' else '2.0.0'}", 200),
        ])

    def test_the_subject_is_sent_in_the_x_prompt_subject_header_when_the_cache_does_not_answer(self) -> None:
        self.rolling()
        client = self.client()

        client.get("welcome-email", label="production", subject="user-42")
        client.idle()

        self.assertEqual(self.requests()[0].headers.get("x-prompt-subject"), "user-42")
        self.assertNotIn("x-prompt-subject", self.requests()[1].headers)

    def test_a_subject_a_header_cannot_carry_is_not_sent_and_still_gets_its_side(self) -> None:
        self.rolling(50)
        client = self.client()
        subjects = ["Zoë", "用户-7", " padded ", ""]

        got = [client.get("welcome-email", label="production", subject=subject) for subject in subjects]

        self.assertEqual([prompt.version for prompt in got], [expected(subject, 50) for subject in subjects])
        self.assertNotIn("x-prompt-subject", self.requests()[0].headers)

    def test_a_subject_longer_than_256_characters_is_refused_before_any_request(self) -> None:
        self.rolling()
        client = self.client()

        with self.assertRaises(InvalidOptionsError):
            client.get("welcome-email", label="production", subject="x" * 257)
        self.assertEqual(self.served(), [])

    def test_a_new_share_is_learnt_when_the_copy_is_revalidated_after_the_ttl(self) -> None:
        self.rolling(10)
        client = self.client()
        client.get("welcome-email", label="production", subject="warm-up")
        client.idle()

        self.api.roll_out("welcome-email", "production", ROLLOUT, "2.0.0", 90)
        self.clock.now += TTL - 1
        within = [client.get("welcome-email", label="production", subject=subject).version for subject in SUBJECTS[:200]]
        self.clock.now += 1
        client.get("welcome-email", label="production", subject="any")
        client.idle()
        after = [client.get("welcome-email", label="production", subject=subject) for subject in SUBJECTS[:200]]

        self.assertEqual(within, [expected(subject, 10) for subject in SUBJECTS[:200]])
        self.assertEqual([prompt.version for prompt in after], [expected(subject, 90) for subject in SUBJECTS[:200]])
        self.assertTrue(all(prompt.rollout is not None and prompt.rollout.percent == 90 for prompt in after))

    def test_when_the_other_side_cannot_be_had_the_side_held_is_served_and_asked_for_again_only_after_a_pause(self) -> None:
        self.rolling()
        client = self.client()
        on_from = next(subject for subject in SUBJECTS if expected(subject, 30) == "1.0.0")
        on_to = next(subject for subject in SUBJECTS if expected(subject, 30) == "2.0.0")
        self.api.script = lambda target, headers: Raw(503, {"error": "unavailable", "code": "SERVICE_UNAVAILABLE"}) if "version=" in target else None
        client.get("welcome-email", label="production", subject=on_from)
        client.idle()
        tried = len(self.served())

        other = client.get("welcome-email", label="production", subject=on_to)
        again = client.get("welcome-email", label="production", subject=on_to)
        paused = len(self.served())
        self.api.script = None
        self.clock.now += 5
        later = client.get("welcome-email", label="production", subject=on_to)

        self.assertEqual(tried, 2)
        self.assertEqual((other.version, other.rollout.side if other.rollout else None, again.version), ("1.0.0", "from", "1.0.0"))
        self.assertEqual(paused, tried)
        self.assertEqual((later.version, later.rollout.side if later.rollout else None), ("2.0.0", "to"))

    def test_latest_and_pinned_versions_carry_no_rollout(self) -> None:
        self.rolling()
        client = self.client()

        latest = client.get("welcome-email", subject="user-1")
        pinned = client.get("welcome-email", version="1.0.0", subject="user-1")

        self.assertEqual((latest.version, latest.rollout, pinned.rollout), ("2.0.0", None, None))
        self.assertTrue(all("x-prompt-subject" not in seen.headers for seen in self.requests()))

    def test_preload_at_the_label_holds_both_sides_so_every_get_is_answered_from_memory(self) -> None:
        self.rolling()
        client = self.client()

        client.preload("production")
        before = len(self.served())
        got = [client.get("welcome-email", label="production", subject=subject) for subject in SUBJECTS]

        self.assertEqual(len(self.served()), before)
        self.assertTrue(all(prompt.version == expected(subject, 30) for subject, prompt in zip(SUBJECTS, got)))

    def test_the_list_at_the_label_is_each_prompt_on_the_side_of_the_subject(self) -> None:
        self.rolling()
        client = self.client()

        for subject in SUBJECTS[:50]:
            (prompt,) = client.list("production", subject=subject)
            self.assertEqual(prompt.version, expected(subject, 30))


class Snapshots(RolloutTestCase):
    def test_a_snapshot_carries_the_rollout_and_both_sides(self) -> None:
        self.rolling()
        client = self.client()
        client.get("welcome-email", label="production", subject="user-1")

        snapshot = client.snapshot()

        self.assertEqual(snapshot["labels"], {"production": {"welcome-email": "1.0.0"}})
        self.assertEqual(snapshot["rollouts"], {"production": {"welcome-email": {"rolloutId": ROLLOUT, "percent": 30, "from": "1.0.0", "to": "2.0.0"}}})
        held = {(prompt["promptId"], prompt["version"]) for prompt in snapshot["prompts"] + snapshot["versions"]}
        self.assertTrue({("welcome-email", "1.0.0"), ("welcome-email", "2.0.0")} <= held)

    def test_a_fallback_on_the_snapshot_keeps_each_subject_on_its_side(self) -> None:
        self.rolling()
        client = self.client()
        client.get("welcome-email", label="production", subject="user-1")
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "snapshot.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump(client.snapshot(), file)

        offline = PromptClient(dead_url(), "prs_offline_key", snapshot=path, clock=self.clock)
        got = [offline.get("welcome-email", label="production", subject=subject) for subject in SUBJECTS[:300]]

        self.assertEqual([prompt.version for prompt in got], [expected(subject, 30) for subject in SUBJECTS[:300]])
        self.assertEqual({prompt.source for prompt in got}, {"snapshot"})

    def test_a_snapshot_whose_rollout_it_cannot_serve_is_refused_at_start_up(self) -> None:
        self.rolling()
        client = self.client()
        client.get("welcome-email", label="production", subject="user-1")
        snapshot = client.snapshot()
        snapshot["versions"] = [prompt for prompt in snapshot["versions"] if prompt["version"] != "1.0.0"]
        snapshot["prompts"] = [prompt for prompt in snapshot["prompts"] if prompt["version"] != "2.0.0"]
        snapshot["labels"] = {}

        with self.assertRaisesRegex(InvalidOptionsError, "snapshot.rollouts"):
            PromptClient(dead_url(), "prs_offline_key", snapshot=snapshot)

    def test_a_snapshot_without_rollouts_still_loads_and_serves_the_label(self) -> None:
        self.rolling()
        client = self.client()
        client.get("welcome-email", label="production", subject="user-1")
        snapshot = client.snapshot()
        del snapshot["rollouts"]

        offline = PromptClient(dead_url(), "prs_offline_key", snapshot=snapshot)
        prompt = offline.get("welcome-email", label="production", subject="user-1")

        self.assertEqual((prompt.version, prompt.rollout, prompt.source), ("1.0.0", None, "snapshot"))


class AsyncSides(WithFakeApi, unittest.IsolatedAsyncioTestCase):
    async def test_a_warm_asyncio_client_makes_no_request_per_subject(self) -> None:
        self.api.add("welcome-email", version("1.0.0"), version("2.0.0"), labels={"production": "1.0.0"})
        self.api.roll_out("welcome-email", "production", ROLLOUT, "2.0.0", 30)
        self.key = self.api.key()
        client = AsyncPromptClient(self.api.url, self.key, clock=self.clock)
        await client.get("welcome-email", label="production", subject="warm-up")
        await client.idle()
        before = len(self.served())

        got = [await client.get("welcome-email", label="production", subject=subject) for subject in SUBJECTS]
        await client.idle()

        self.assertEqual((before, len(self.served())), (2, 2))
        self.assertEqual([prompt.version for prompt in got], [expected(subject, 30) for subject in SUBJECTS])
