"""PromptClient against a local HTTP server that answers as the read API does: the TypeScript client's
behaviour, call by call, with the requests it causes counted at the server."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import traceback
import unittest
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

from prompt_retrieval import (
    InvalidOptionsError,
    LabelNotFoundError,
    NotFoundError,
    Prompt,
    PromptClient,
    ServiceUnavailableError,
    UnauthorizedError,
    UsageLimitExceededError,
    VersionNotFoundError,
)

from ..support.fake_api import UPGRADE_URL, FakeApi, Raw, WithFakeApi, dead_url, version

TTL = 60.0


class ClientTestCase(WithFakeApi, unittest.TestCase):
    def client(self, key: Optional[str] = None, **options: Any) -> PromptClient:
        self.key = key or self.api.key()
        client = PromptClient(self.api.url, self.key, clock=self.clock, **options)
        self.addCleanup(client.idle, 10)
        return client

    def welcome(self) -> None:
        self.api.add("welcome-email", version("1.0.0", "You write to ${name}.", "Welcome ${name} to ${company}."))


class LatestVersions(ClientTestCase):
    def test_the_first_call_waits_for_the_api_and_returns_the_prompt_its_variables_and_source(self) -> None:
        self.welcome()
        client = self.client()

        found = client.get("welcome-email")

        self.assertEqual((found.prompt_id, found.version, found.source), ("welcome-email", "1.0.0", "network"))
        self.assertEqual(found.variables, ("name", "company"))
        self.assertEqual(
            found.compile(name="Ada", company="Acme"),
            [{"role": "system", "content": "You write to Ada."}, {"role": "user", "content": "Welcome Ada to Acme."}],
        )
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200"])

    def test_calls_within_the_ttl_are_answered_from_memory_and_make_no_request(self) -> None:
        self.welcome()
        client = self.client()
        client.get("welcome-email")

        self.clock.now += TTL - 0.001
        answers = [client.get("welcome-email") for _ in range(100)]
        client.idle()

        self.assertTrue(all(answer.source == "cache" and answer.version == "1.0.0" for answer in answers))
        self.assertEqual(len(self.served()), 1)

    def test_after_the_ttl_the_copy_is_returned_at_once_and_revalidated_in_the_background_with_if_none_match(self) -> None:
        self.welcome()
        client = self.client()
        client.get("welcome-email")

        self.clock.now += TTL
        stale = client.get("welcome-email")
        client.idle()

        self.assertEqual(stale.source, "cache")
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200", "GET /prompts/welcome-email 304"])
        self.assertIn("if-none-match", self.api.seen[-1].headers)
        self.clock.now += TTL - 0.001
        client.get("welcome-email")
        client.idle()
        self.assertEqual(len(self.served()), 2)

    def test_a_revalidation_that_finds_a_newer_version_serves_it_from_the_next_call_on(self) -> None:
        self.welcome()
        client = self.client()
        client.get("welcome-email")
        self.api.add("welcome-email", version("1.1.0", user="Hi ${name}."))

        self.clock.now += TTL
        self.assertEqual(client.get("welcome-email").version, "1.0.0")
        client.idle()

        newer = client.get("welcome-email")
        self.assertEqual((newer.version, newer.variables, newer.source), ("1.1.0", ("name",), "cache"))

    def test_a_background_revalidation_never_holds_up_a_call(self) -> None:
        self.welcome()
        client = self.client(timeout_seconds=60)
        client.get("welcome-email")
        self.clock.now += TTL
        self.api.hold()
        answered: List[Prompt] = []
        caller = threading.Thread(target=lambda: answered.append(client.get("welcome-email")))
        try:
            caller.start()
            caller.join(30)
            # The revalidation is still held open at the server, yet the call has its answer.
            self.assertFalse(caller.is_alive(), "get waited for the background revalidation")
            self.assertEqual(answered[0].source, "cache")
        finally:
            self.api.release()
        client.idle()
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200", "GET /prompts/welcome-email 304"])


class Coalescing(ClientTestCase):
    def run_at_once(self, count: int, call: Any) -> List[Any]:
        """Starts `count` threads that call together, holding the server's first answer until every
        thread has had time to make its call (a second request arriving ends the wait at once)."""
        barrier = threading.Barrier(count)
        results: List[Any] = [None] * count

        def each(index: int) -> None:
            barrier.wait()
            results[index] = call()

        self.api.hold()
        threads = [threading.Thread(target=each, args=(index,)) for index in range(count)]
        for thread in threads:
            thread.start()
        self.api.arrived.acquire(timeout=30)
        self.api.arrived.acquire(timeout=0.5)
        self.api.release()
        for thread in threads:
            thread.join(30)
        return results

    def test_concurrent_first_calls_for_the_same_prompt_from_threads_share_one_request(self) -> None:
        self.welcome()
        client = self.client()

        answers = self.run_at_once(20, lambda: client.get("welcome-email"))

        self.assertEqual({answer.version for answer in answers}, {"1.0.0"})
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200"])

    def test_concurrent_calls_after_the_ttl_share_one_background_revalidation(self) -> None:
        self.welcome()
        client = self.client()
        client.get("welcome-email")
        self.clock.now += TTL

        answers = self.run_at_once(20, lambda: client.get("welcome-email"))
        client.idle()

        self.assertEqual({answer.source for answer in answers}, {"cache"})
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200", "GET /prompts/welcome-email 304"])

    def test_concurrent_failures_are_shared_too_each_caller_raising_an_error_of_its_own(self) -> None:
        client = self.client()

        errors = self.run_at_once(8, lambda: _raised(lambda: client.get("missing")))

        self.assertTrue(all(isinstance(error, NotFoundError) for error in errors))
        self.assertEqual(len({id(error) for error in errors}), 8)
        self.assertEqual(self.served(), ["GET /prompts/missing 404"])

    def test_eight_threads_getting_twenty_prompts_make_one_request_per_prompt(self) -> None:
        ids = [f"p-{index:02d}" for index in range(20)]
        for prompt_id in ids:
            self.api.add(prompt_id, version("1.0.0"))
        client = self.client()
        failures: List[BaseException] = []

        def work(offset: int) -> None:
            try:
                for index in range(500):
                    assert client.get(ids[(index + offset) % 20]).prompt_id == ids[(index + offset) % 20]
            except BaseException as error:  # noqa: BLE001 - reported by the assertion below
                failures.append(error)

        threads = [threading.Thread(target=work, args=(offset,)) for offset in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

        self.assertEqual(failures, [])
        self.assertEqual(sorted(self.served()), sorted(f"GET /prompts/{prompt_id} 200" for prompt_id in ids))


class PinnedVersions(ClientTestCase):
    def test_a_pinned_version_is_fetched_once_and_never_again_however_much_time_passes(self) -> None:
        self.api.add("p", version("1.0.0"), version("1.1.0"))
        client = self.client()

        self.assertEqual(client.get("p", version="1.0.0").source, "network")
        self.clock.now += 365 * 24 * 3600
        again = client.get("p", version="1.0.0")
        client.idle()

        self.assertEqual((again.version, again.source), ("1.0.0", "cache"))
        self.assertEqual(self.served(), ["GET /prompts/p 200"])

    def test_the_latest_copy_also_answers_for_its_own_version(self) -> None:
        self.welcome()
        client = self.client()
        client.get("welcome-email")

        self.assertEqual(client.get("welcome-email", "1.0.0").source, "cache")
        self.assertEqual(len(self.served()), 1)

    def test_a_version_that_is_not_published_raises_version_not_found(self) -> None:
        self.welcome()
        client = self.client()

        with self.assertRaises(VersionNotFoundError) as raised:
            client.get("welcome-email", version="9.0.0")

        self.assertEqual((raised.exception.code, raised.exception.prompt_id, raised.exception.version), ("VERSION_NOT_FOUND", "welcome-email", "9.0.0"))
        self.assertEqual(raised.exception.status, 404)

    def test_beyond_max_cached_versions_the_least_recently_used_is_fetched_again(self) -> None:
        self.api.add("p", version("1.0.0"), version("1.1.0"), version("1.2.0"))
        client = self.client(max_cached_versions=2)
        client.get("p", version="1.0.0")
        client.get("p", version="1.1.0")
        client.get("p", version="1.0.0")
        client.get("p", version="1.2.0")

        self.assertEqual(client.get("p", version="1.0.0").source, "cache")
        self.assertEqual(client.get("p", version="1.1.0").source, "network")


class Deletes(ClientTestCase):
    def test_a_404_on_revalidation_drops_the_prompt_latest_and_pinned_and_the_next_call_raises_not_found(self) -> None:
        self.welcome()
        client = self.client()
        client.get("welcome-email")
        client.get("welcome-email", version="1.0.0")
        self.api.delete("welcome-email")

        self.clock.now += TTL
        self.assertEqual(client.get("welcome-email").source, "cache")
        client.idle()

        with self.assertRaises(NotFoundError) as raised:
            client.get("welcome-email")
        self.assertEqual((raised.exception.code, raised.exception.prompt_id), ("NOT_FOUND", "welcome-email"))
        with self.assertRaises(NotFoundError):
            client.get("welcome-email", version="1.0.0")
        self.assertEqual(self.served()[1:], ["GET /prompts/welcome-email 404"] * 3)


class Lists(ClientTestCase):
    def three(self) -> None:
        self.welcome()
        self.api.add("a", version("1.0.0"))
        self.api.add("b", version("2.0.0"))

    def test_list_fills_the_cache_for_every_prompt_in_one_request(self) -> None:
        self.three()
        client = self.client()

        listed = client.list()
        got = [client.get(prompt_id) for prompt_id in ("a", "b", "welcome-email")]

        self.assertEqual([f"{p.prompt_id} {p.version} {p.source}" for p in listed], ["a 1.0.0 network", "b 2.0.0 network", "welcome-email 1.0.0 network"])
        self.assertEqual([p.source for p in got], ["cache", "cache", "cache"])
        self.assertEqual(self.served(), ["GET /prompts 200"])

    def test_prompts_filled_by_preload_are_revalidated_as_a_whole_by_one_conditional_list_request(self) -> None:
        self.three()
        client = self.client()
        client.preload()

        self.clock.now += TTL
        for prompt_id in ("a", "b", "welcome-email"):
            client.get(prompt_id)
        client.idle()
        for prompt_id in ("a", "b", "welcome-email"):
            client.get(prompt_id)
        client.idle()

        self.assertEqual(self.served(), ["GET /prompts 200", "GET /prompts 304"])

    def test_a_list_revalidation_drops_the_prompts_the_list_no_longer_has(self) -> None:
        self.three()
        client = self.client()
        client.preload()
        self.api.delete("a")

        self.clock.now += TTL
        client.list()
        client.idle()

        self.assertEqual([p.prompt_id for p in client.list()], ["b", "welcome-email"])
        with self.assertRaises(NotFoundError):
            client.get("a")


class Labels(ClientTestCase):
    def labelled(self) -> None:
        self.api.add(
            "welcome-email",
            version("1.0.0", user="Hi ${name}"),
            version("1.1.0", user="Hello ${name} at ${company}"),
            version("1.2.0"),
            labels={"production": "1.0.0", "staging": "1.1.0"},
        )
        self.api.add("summary", version("2.0.0"), labels={"production": "2.0.0"})
        self.api.add("unlabelled", version("1.0.0"))

    def test_get_at_a_label_waits_for_the_first_answer_only_then_serves_it_from_memory_within_the_ttl(self) -> None:
        self.labelled()
        client = self.client()

        first = client.get("welcome-email", label="production")
        self.clock.now += TTL - 0.001
        again = client.get("welcome-email", label="production")
        client.idle()

        self.assertEqual((first.version, first.source, first.variables), ("1.0.0", "network", ("name",)))
        self.assertEqual((again.version, again.source), ("1.0.0", "cache"))
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200"])
        self.assertEqual(self.api.seen[-1].headers.get("if-none-match"), None)

    def test_a_moved_label_is_seen_once_revalidated_and_latest_and_other_labels_are_their_own(self) -> None:
        self.labelled()
        client = self.client()
        client.get("welcome-email", label="production")
        self.assertEqual(client.get("welcome-email").version, "1.2.0")

        self.api.set_label("welcome-email", "production", "1.1.0")
        self.clock.now += TTL
        self.assertEqual(client.get("welcome-email", label="production").version, "1.0.0")
        client.idle()

        moved = client.get("welcome-email", label="production")
        self.assertEqual((moved.version, moved.variables), ("1.1.0", ("name", "company")))
        self.assertEqual(client.get("welcome-email").version, "1.2.0")
        self.assertEqual(client.get("welcome-email", label="staging").version, "1.1.0")

    def test_preload_at_a_label_fills_the_cache_for_every_prompt_at_it_with_one_list_request(self) -> None:
        self.labelled()
        client = self.client()

        client.preload(label="production")
        answers = [client.get("welcome-email", label="production"), client.get("summary", label="production")]

        self.assertEqual([f"{p.prompt_id} {p.version} {p.source}" for p in answers], ["welcome-email 1.0.0 cache", "summary 2.0.0 cache"])
        self.assertEqual(self.served(), ["GET /prompts 200"])
        self.assertEqual([p.prompt_id for p in client.list("staging")], ["welcome-email"])

    def test_a_label_the_prompt_lacks_raises_label_not_found_and_a_removed_label_drops_its_copy_only(self) -> None:
        self.labelled()
        client = self.client()
        with self.assertRaises(LabelNotFoundError) as raised:
            client.get("unlabelled", label="production")
        error = raised.exception
        self.assertEqual((error.code, error.prompt_id, error.label, error.status), ("LABEL_NOT_FOUND", "unlabelled", "production", 404))

        client.get("welcome-email", label="staging")
        client.get("welcome-email", label="production")
        self.api.set_label("welcome-email", "staging", None)
        self.clock.now += TTL
        client.get("welcome-email", label="staging")
        client.idle()

        with self.assertRaises(LabelNotFoundError):
            client.get("welcome-email", label="staging")
        self.assertEqual(client.get("welcome-email", label="production").version, "1.0.0")

    def test_label_latest_is_latest(self) -> None:
        self.labelled()
        client = self.client()
        self.assertEqual(client.get("welcome-email", label="latest").version, "1.2.0")
        self.assertEqual(client.get("welcome-email").source, "cache")
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 200"])

    def test_version_and_label_together_or_a_malformed_label_are_refused_before_any_request(self) -> None:
        client = self.client()
        with self.assertRaisesRegex(InvalidOptionsError, "^get: give version or label, not both$"):
            client.get("welcome-email", version="1.0.0", label="production")
        with self.assertRaisesRegex(InvalidOptionsError, '^get: label must be 1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter$'):
            client.get("welcome-email", label="Production")
        with self.assertRaises(InvalidOptionsError):
            client.list(label="")
        self.assertEqual(self.served(), [])


class KeysRefused(ClientTestCase):
    def test_401_is_never_hidden_behind_a_cache_and_once_the_key_is_accepted_again_copies_serve_again(self) -> None:
        self.welcome()
        client = self.client()
        client.get("welcome-email")
        client.get("welcome-email", version="1.0.0")
        self.api.revoke(self.key)

        self.clock.now += TTL
        client.get("welcome-email")
        client.idle()

        with self.assertRaises(UnauthorizedError) as raised:
            client.get("welcome-email")
        self.assertEqual((raised.exception.code, raised.exception.status, str(raised.exception)), ("UNAUTHORIZED", 401, "Invalid API key"))
        with self.assertRaises(UnauthorizedError):
            client.get("welcome-email", version="1.0.0")
        with self.assertRaises(UnauthorizedError):
            client.list()
        self.assertEqual(len(self.served()), 5)

        self.api.keys[self.key].revoked = False
        self.assertEqual(client.get("welcome-email").version, "1.0.0")
        self.assertEqual(self.served()[-1], "GET /prompts/welcome-email 304")
        self.assertEqual(client.get("welcome-email").source, "cache")
        self.assertEqual(len(self.served()), 6)

    def test_a_key_the_api_does_not_know_fails_the_first_call_even_with_a_snapshot_to_fall_back_on(self) -> None:
        self.welcome()
        snapshot = self.client().snapshot()
        stranger = PromptClient(self.api.url, "prs_not_a_key_of_this_service_0000", snapshot=snapshot)

        with self.assertRaises(UnauthorizedError) as raised:
            stranger.get("welcome-email")

        self.assertNotIn("prs_not_a_key", str(raised.exception))


class Quota(ClientTestCase):
    def test_429_copies_are_served_and_no_request_is_made_until_retry_after_has_passed(self) -> None:
        self.welcome()
        self.api.add("a", version("1.0.0"))
        self.api.add("b", version("1.0.0"))
        self.api.retry_after = "3600"
        client = self.client(self.api.key(limit=2))
        client.get("welcome-email")
        client.get("a")

        self.clock.now += TTL
        self.assertEqual(client.get("welcome-email").source, "cache")
        client.idle()
        self.assertEqual(self.served()[-1], "GET /prompts/welcome-email 429")

        self.clock.now += 10 * TTL
        self.assertEqual(client.get("welcome-email").source, "cache")
        self.assertEqual(client.get("a").source, "cache")
        with self.assertRaises(UsageLimitExceededError) as raised:
            client.get("b")
        client.idle()
        error = raised.exception
        self.assertEqual((error.code, error.status, error.usage, error.upgrade_url), ("USAGE_LIMIT_EXCEEDED", 429, (2, 2), UPGRADE_URL))
        now = datetime.now(timezone.utc)
        self.assertEqual(error.resets_at, datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=timezone.utc))
        self.assertEqual(len(self.served()), 3)

        self.clock.now += 3600 - 10 * TTL
        with self.assertRaises(UsageLimitExceededError):
            client.get("b")
        self.assertEqual(len(self.served()), 4)

    def test_a_snapshot_serves_what_was_never_cached_while_the_quota_is_used_up(self) -> None:
        self.welcome()
        snapshot = self.client().snapshot()
        client = self.client(self.api.key(limit=0), snapshot=snapshot)

        self.assertEqual(client.get("welcome-email").source, "snapshot")
        self.assertEqual(client.get("welcome-email").source, "snapshot")
        self.assertEqual(self.served(), ["GET /prompts/welcome-email 429"])

    def test_quota_reports_the_x_ratelimit_headers_of_the_last_answer(self) -> None:
        self.api.add("p", version("1.0.0"), version("1.1.0"))
        client = self.client(self.api.key(limit=10))
        self.assertIsNone(client.quota)

        client.get("p")
        client.get("p", version="1.0.0")

        quota = client.quota
        assert quota is not None
        self.assertEqual((quota.limit, quota.remaining), (10, 8))
        self.assertEqual(quota.resets_at.tzinfo, timezone.utc)
        self.assertEqual((quota.resets_at.day, quota.resets_at.hour), (1, 0))

    def test_the_gateways_own_429_pauses_requests_for_a_second_and_raises_service_unavailable_when_nothing_is_cached(self) -> None:
        self.api.script = lambda target, headers: Raw(429, {"message": "Too Many Requests"})
        client = self.client()

        with self.assertRaises(ServiceUnavailableError) as raised:
            client.get("p")
        self.assertEqual(raised.exception.status, 429)
        with self.assertRaises(ServiceUnavailableError):
            client.get("q")
        self.assertEqual(len(self.served()), 1)
        self.clock.now += 1
        with self.assertRaises(ServiceUnavailableError):
            client.get("q")
        self.assertEqual(len(self.served()), 2)

    def test_retry_after_as_an_http_date_is_honoured(self) -> None:
        self.api.add("p", version("1.0.0"))
        self.api.retry_after = "Wed, 18 Nov 2026 13:00:00 GMT"
        client = self.client(self.api.key(limit=0))

        for _ in range(3):
            with self.assertRaises(UsageLimitExceededError):
                client.get("p")
        self.assertEqual(len(self.served()), 1)
        self.clock.now += 3600
        with self.assertRaises(UsageLimitExceededError):
            client.get("p")
        self.assertEqual(len(self.served()), 2)


class Outages(ClientTestCase):
    def snapshot_of(self, *prompt_ids: str) -> Dict[str, Any]:
        for prompt_id in prompt_ids:
            self.api.add(prompt_id, version("1.0.0"))
        return self.client().snapshot()

    def test_a_5xx_with_no_copy_raises_service_unavailable_with_the_apis_status_and_message(self) -> None:
        self.api.script = lambda target, headers: Raw(503, {"error": "The service is temporarily unavailable.", "code": "SERVICE_UNAVAILABLE"})
        client = self.client()

        with self.assertRaises(ServiceUnavailableError) as raised:
            client.get("p")

        self.assertEqual((raised.exception.status, str(raised.exception)), (503, "The service is temporarily unavailable."))

    def test_a_5xx_on_revalidation_keeps_the_copy_and_the_api_is_asked_again_only_after_a_pause(self) -> None:
        self.api.add("p", version("1.0.0"))
        client = self.client()
        client.get("p")
        self.api.script = lambda target, headers: Raw(500, {"error": "boom", "code": "INTERNAL_ERROR"})

        self.clock.now += TTL
        for _ in range(50):
            self.assertEqual(client.get("p").source, "cache")
        client.idle()
        for _ in range(50):
            client.get("p")
        self.assertEqual(len(self.served()), 2)

        self.clock.now += 5
        client.get("p")
        client.idle()
        self.assertEqual(len(self.served()), 3)

    def test_a_request_with_no_answer_within_timeout_seconds_is_an_outage_and_the_snapshot_serves(self) -> None:
        snapshot = self.snapshot_of("p")
        self.api.script = lambda target, headers: "hang"
        client = self.client(timeout_seconds=0.2, snapshot=snapshot)

        self.assertEqual(client.get("p").source, "snapshot")
        with self.assertRaisesRegex(ServiceUnavailableError, r"^GET /prompts/q: no answer within 0.2 s$"):
            client.get("q")

    def test_a_refused_connection_is_an_outage_named_as_such(self) -> None:
        client = PromptClient(dead_url(), "prs_any_key_the_app_holds_0000", clock=self.clock)
        with self.assertRaisesRegex(ServiceUnavailableError, r"^GET /prompts/p: Connection refused \(ECONNREFUSED\)$"):
            client.get("p")

    def test_a_dropped_connection_is_an_outage(self) -> None:
        snapshot = self.snapshot_of("p")
        self.api.script = lambda target, headers: "drop"
        client = self.client(snapshot=snapshot)
        self.assertEqual(client.get("p").source, "snapshot")
        with self.assertRaises(ServiceUnavailableError):
            client.get("q")

    def test_an_answer_that_is_not_a_prompt_is_an_outage_not_handed_to_the_caller(self) -> None:
        snapshot = self.snapshot_of("p")
        self.api.script = lambda target, headers: Raw(200, {"hello": "captive portal"})
        client = self.client(snapshot=snapshot)

        self.assertEqual(client.get("p").source, "snapshot")
        with self.assertRaisesRegex(ServiceUnavailableError, r"^GET /prompts/q: the answer is not a prompt the client can read \(promptId: must be a string\)$"):
            client.get("q")
        self.api.script = lambda target, headers: Raw(200, "<html>not json</html>")
        with self.assertRaisesRegex(ServiceUnavailableError, r"^GET /prompts/r: the answer \(200\) is not JSON$"):
            client.get("r")

    def test_with_the_service_down_list_answers_with_every_copy_there_is(self) -> None:
        snapshot = self.snapshot_of("a", "b")
        self.api.add("c", version("3.0.0"))
        client = self.client(snapshot=snapshot)
        client.get("c")
        self.api.script = lambda target, headers: Raw(502, {"error": "Bad gateway", "code": "INTERNAL_ERROR"})

        listed = client.list()

        self.assertEqual([f"{p.prompt_id} {p.version} {p.source}" for p in listed], ["a 1.0.0 snapshot", "b 1.0.0 snapshot", "c 3.0.0 cache"])


class Redirects(ClientTestCase):
    def test_a_redirect_is_not_followed_so_the_key_never_reaches_another_host_and_copies_serve(self) -> None:
        other = FakeApi()
        self.addCleanup(other.close)
        snapshot = self.snapshot()
        self.api.script = lambda target, headers: Raw(302, b"", {"Location": f"{other.url}{target}"})
        client = self.client(snapshot=snapshot)

        self.assertEqual(client.get("p").source, "snapshot")
        with self.assertRaisesRegex(ServiceUnavailableError, "answered 302, a redirect the client does not follow"):
            client.get("q")
        self.assertEqual(other.seen, [])

    def snapshot(self) -> Dict[str, Any]:
        self.api.add("p", version("1.0.0"))
        return self.client().snapshot()


class Requests(ClientTestCase):
    def test_the_key_goes_only_in_the_authorization_header_and_the_id_is_encoded(self) -> None:
        self.api.add("a b", version("1.0.0"))
        client = PromptClient(self.api.url + "/", self.api.key(), clock=self.clock)

        client.get("a b", version="1.0.0")

        seen = self.api.seen[-1]
        self.assertEqual(seen.path, "/prompts/a%20b")
        self.assertEqual(seen.headers["authorization"], f"Bearer {list(self.api.keys)[-1]}")
        self.assertEqual(seen.headers["accept"], "application/json")
        self.assertTrue(seen.headers["user-agent"].startswith("prompt-retrieval-client-python/"))

    def test_the_key_never_appears_in_an_error_a_repr_or_a_traceback_with_its_locals(self) -> None:
        key = "prs_unit_test_key_do_not_echo_0001"
        clients = [PromptClient(dead_url(), key), PromptClient(self.api.url, key)]
        for client in clients:
            with self.assertRaises(Exception) as raised:
                client.get("p")
            rendered = "".join(traceback.TracebackException.from_exception(raised.exception, capture_locals=True).format())
            for text in (rendered, str(raised.exception), repr(raised.exception), repr(client), str(client), repr(vars(client))):
                self.assertNotIn(key, text)
            http: object = vars(client)["_http"]
            self.assertNotIn(key, repr(vars(http)))

    def test_bad_options_are_refused_at_once_naming_the_option(self) -> None:
        url = self.api.url
        key = self.api.key()
        cases = [
            (lambda: PromptClient("prompts.example.test", key), 'base_url: must be an absolute http or https URL, got "prompts.example.test"'),
            (lambda: PromptClient("ftp://prompts.example.test", key), 'base_url: must be an http or https URL, got "ftp://prompts.example.test"'),
            (lambda: PromptClient(url, " "), "api_key: must be a non-empty string"),
            (lambda: PromptClient(url, key, ttl_seconds=-1), "ttl_seconds: must be a number, 0 or more"),
            (lambda: PromptClient(url, key, timeout_seconds=0), "timeout_seconds: must be a number, 0.001 or more"),
            (lambda: PromptClient(url, key, snapshot={"format": "other"}), 'snapshot: not a snapshot of this client (expected format "prompt-retrieval-snapshot", formatVersion 1)'),
        ]
        for create, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(InvalidOptionsError) as raised:
                    create()
                self.assertEqual(str(raised.exception), message)
                self.assertIsInstance(raised.exception, ValueError)


class Immutability(ClientTestCase):
    def test_what_a_caller_does_with_a_prompt_never_changes_what_the_next_caller_gets(self) -> None:
        self.api.add("p", version("1.0.0", schema=[{"name": "reply", "type": "string"}], inputData={"a": [1]}))
        client = self.client()
        first = client.get("p")

        with self.assertRaises(AttributeError):
            first.user_message = "changed"  # type: ignore[misc]
        first.config.schema.append("x")
        first.config.input_data["a"].append(2)
        first.to_dict()["config"]["schema"].clear()
        snapshot = client.snapshot()
        snapshot["prompts"][0]["config"]["schema"].clear()

        again = client.get("p")
        self.assertEqual(again.config.schema, [{"name": "reply", "type": "string"}])
        self.assertEqual(again.config.input_data, {"a": [1]})
        self.assertEqual(again.user_message, "Hello ${name}, this is 1.0.0")


class SnapshotFiles(ClientTestCase):
    def test_a_snapshot_dumped_to_a_file_is_read_back_from_its_path_and_serves_labels_offline(self) -> None:
        self.api.add("welcome-email", version("1.0.0"), version("1.1.0"), labels={"production": "1.0.0"})
        client = self.client()
        client.get("welcome-email", label="production")
        snapshot = client.snapshot()
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "prompts.snapshot.json")
            with open(path, "w", encoding="utf-8") as file:
                json.dump(snapshot, file)
            offline = PromptClient(dead_url(), "prs_any_key_the_app_holds_0000", snapshot=path)

            labelled = offline.get("welcome-email", label="production")
            latest = offline.get("welcome-email")

        self.assertEqual((labelled.version, labelled.source), ("1.0.0", "snapshot"))
        self.assertEqual((latest.version, latest.source), ("1.1.0", "snapshot"))
        self.assertEqual(offline.snapshot()["labels"], {"production": {"welcome-email": "1.0.0"}})

    def test_snapshot_holds_every_prompt_at_latest_and_every_version_fetched_in_the_api_key_order(self) -> None:
        self.api.add("a", version("1.0.0"), version("1.1.0"))
        self.api.add("b", version("2.0.0"))
        client = self.client()
        client.get("a", version="1.0.0")

        snapshot = client.snapshot()

        self.assertEqual((snapshot["format"], snapshot["formatVersion"], snapshot["createdAt"]), ("prompt-retrieval-snapshot", 1, "2026-11-18T12:00:00.000Z"))
        self.assertEqual([f"{p['promptId']} {p['version']}" for p in snapshot["prompts"]], ["a 1.1.0", "b 2.0.0"])
        self.assertEqual([f"{p['promptId']} {p['version']}" for p in snapshot["versions"]], ["a 1.0.0"])
        self.assertEqual(list(snapshot["prompts"][0]), ["promptId", "promptName", "version", "systemMessage", "userMessage", "config"])
        self.assertNotIn("labels", snapshot)
        self.assertEqual(json.loads(json.dumps(snapshot)), snapshot)

    def test_a_snapshot_file_that_cannot_be_read_is_refused_at_start_up(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            missing = os.path.join(folder, "missing.json")
            with self.assertRaisesRegex(InvalidOptionsError, r"^snapshot: cannot read .*missing\.json \(No such file or directory\)$"):
                PromptClient(self.api.url, "prs_any_key_the_app_holds_0000", snapshot=missing)
            damaged = os.path.join(folder, "damaged.json")
            with open(damaged, "w", encoding="utf-8") as file:
                file.write("{")
            with self.assertRaisesRegex(InvalidOptionsError, r"^snapshot: .*damaged\.json is not valid JSON"):
                PromptClient(self.api.url, "prs_any_key_the_app_holds_0000", snapshot=damaged)


def _raised(call: Any) -> BaseException:
    try:
        call()
    except BaseException as error:  # noqa: BLE001 - returned for the test to judge
        return error
    raise AssertionError("no error was raised")


if __name__ == "__main__":
    unittest.main()
