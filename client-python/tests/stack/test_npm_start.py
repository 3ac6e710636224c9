"""The Python client against the real thing: ``npm start`` (the real handlers, on the embedded store),
with keys made by the seed file and by the admin CLI, and every request counted from the stack's own
request log. The stack stopped mid-run is in test_stack_stopped.py."""

from __future__ import annotations

import secrets
import unittest
from datetime import datetime, timezone
from typing import Any, Dict, List

from prompt_retrieval import (
    LabelNotFoundError,
    NotFoundError,
    PromptClient,
    UnauthorizedError,
    UsageLimitExceededError,
    VersionNotFoundError,
)

from ..support.fake_api import Clock
from ..support.local_stack import LocalStack

ACCOUNT = "acct_python"
KEY = "prs_python_client_" + secrets.token_urlsafe(24)
TINY_KEY = "prs_python_tiny_" + secrets.token_urlsafe(24)
TTL = 60.0
stack: LocalStack


def content(number: str, system: str, user: str) -> Dict[str, Any]:
    return {
        "version": number,
        "published": True,
        "systemMessage": system,
        "userMessage": user,
        "config": {"model": "gpt-4o-mini", "temperature": 0.7, "schema": [], "inputData": None, "inputDataRootName": None},
    }


SEED = {
    "accounts": [
        {
            "accountId": ACCOUNT,
            "name": "Python client tests",
            "plan": "free",
            "keys": [{"apiKey": KEY}, {"apiKey": TINY_KEY, "monthlyLimit": 2}],
            "prompts": [
                {
                    "promptId": "welcome-email",
                    "promptName": "Welcome email",
                    "labels": {"production": "1.0.0", "staging": "1.1.0"},
                    "versions": [
                        content("1.0.0", "You write to ${name}.", "Welcome ${name} to ${product}."),
                        content("1.1.0", "You write to ${name}, briefly.", "Welcome ${name} to ${product} on ${plan}."),
                    ],
                },
                {"promptId": "summary", "promptName": "Summary", "versions": [content("2.0.0", "", "Sum up: ${text}")]},
                {"promptId": "extra", "promptName": "Extra", "versions": [content("1.0.0", "", "Extra ${x}")]},
            ],
        }
    ]
}


def setUpModule() -> None:
    global stack
    stack = LocalStack(SEED)


def tearDownModule() -> None:
    log_lines = [line for line in stack.output().splitlines() if line.startswith("{")]
    stack.remove()
    # docs/behaviour-rules.md: a key never appears in a log line (the banner names the seed's first key
    # as the demo key, on purpose: it is the developer's own).
    assert any("\"message\":\"request\"" in line for line in log_lines), "the stack logged no requests"
    for key in (KEY, TINY_KEY):
        assert not any(key in line for line in log_lines), "an API key appeared in a log line of npm start"


class AgainstNpmStart(unittest.TestCase):
    def setUp(self) -> None:
        self.clock = Clock(datetime.now(timezone.utc).timestamp())

    def client(self, key: str, **options: Any) -> PromptClient:
        client = PromptClient(stack.api_url, key, clock=self.clock, **options)
        self.addCleanup(client.idle, 30)
        return client

    def assertServed(self, key: str, expected: List[str]) -> None:  # noqa: N802 - unittest's style
        self.assertEqual(stack.requests_of(key, len(expected)), expected)

    def new_key(self, **limit: int) -> str:
        """A key made with the admin CLI, as an operator makes one; requests with it are this test's own."""
        options: List[str] = ["--monthly-limit", str(limit["monthly_limit"])] if "monthly_limit" in limit else []
        created = stack.admin("keys", "create", "--account", ACCOUNT, *options)
        self.key_id = created["keyId"]
        return created["apiKey"]

    def test_get_serves_latest_pinned_and_labelled_versions_and_compiles_them_into_chat_messages(self) -> None:
        key = self.new_key()
        client = self.client(key)

        latest = client.get("welcome-email")
        pinned = client.get("welcome-email", version="1.0.0")
        production = client.get("welcome-email", label="production")

        self.assertEqual((latest.version, latest.source, latest.variables), ("1.1.0", "network", ("name", "product", "plan")))
        self.assertEqual((pinned.version, pinned.source), ("1.0.0", "network"))
        self.assertEqual((production.version, production.source), ("1.0.0", "network"))
        self.assertEqual(
            production.compile(name="Ada", product="Acme"),
            [{"role": "system", "content": "You write to Ada."}, {"role": "user", "content": "Welcome Ada to Acme."}],
        )
        self.assertEqual(latest.config.model, "gpt-4o-mini")
        self.assertServed(
            key,
            ["GET /prompts/welcome-email 200", "GET /prompts/welcome-email 200", "GET /prompts/welcome-email 200"],
        )

    def test_after_the_ttl_a_copy_is_revalidated_in_the_background_and_the_stack_answers_304(self) -> None:
        key = self.new_key()
        client = self.client(key)
        client.get("summary")

        self.clock.now += TTL
        self.assertEqual(client.get("summary").source, "cache")
        client.idle()
        for _ in range(20):
            client.get("summary")

        self.assertServed(key, ["GET /prompts/summary 200", "GET /prompts/summary 304"])

    def test_list_and_preload_fetch_every_prompt_in_one_request_and_gets_are_then_answered_from_memory(self) -> None:
        key = self.new_key()
        client = self.client(key)

        listed = client.list()
        client.preload(label="production")
        got = [client.get("extra"), client.get("summary"), client.get("welcome-email"), client.get("welcome-email", label="production")]

        self.assertEqual([f"{p.prompt_id} {p.version}" for p in listed], ["extra 1.0.0", "summary 2.0.0", "welcome-email 1.1.0"])
        self.assertEqual([p.source for p in got], ["cache"] * 4)
        self.assertEqual([p.prompt_id for p in client.list(label="production")], ["welcome-email"])
        self.assertServed(key, ["GET /prompts 200", "GET /prompts 200"])

    def test_a_label_moved_with_the_admin_cli_is_seen_after_the_ttl_and_a_removed_one_raises_label_not_found(self) -> None:
        key = self.new_key()
        client = self.client(key)
        self.assertEqual(client.get("welcome-email", label="staging").version, "1.1.0")

        stack.admin("prompts", "label", "--account", ACCOUNT, "--prompt", "welcome-email", "--label", "staging", "--version", "1.0.0")
        self.addCleanup(stack.admin, "prompts", "label", "--account", ACCOUNT, "--prompt", "welcome-email", "--label", "staging", "--version", "1.1.0")
        self.clock.now += TTL
        client.get("welcome-email", label="staging")
        client.idle()
        self.assertEqual(client.get("welcome-email", label="staging").version, "1.0.0")

        with self.assertRaises(LabelNotFoundError):
            client.get("summary", label="staging")

    def test_unknown_prompts_and_versions_raise_their_errors(self) -> None:
        client = self.client(self.new_key())
        with self.assertRaises(NotFoundError):
            client.get("no-such-prompt")
        with self.assertRaises(VersionNotFoundError):
            client.get("summary", version="9.9.9")

    def test_a_key_revoked_with_the_admin_cli_is_refused_and_no_copy_hides_it(self) -> None:
        key = self.new_key()
        client = self.client(key)
        client.get("summary")
        client.get("summary", version="2.0.0")

        stack.admin("keys", "revoke", "--account", ACCOUNT, "--key", self.key_id)
        self.clock.now += TTL
        client.get("summary")
        client.idle()

        with self.assertRaises(UnauthorizedError) as raised:
            client.get("summary")
        self.assertEqual((raised.exception.status, str(raised.exception)), (401, "Invalid API key"))
        with self.assertRaises(UnauthorizedError):
            client.get("summary", version="2.0.0")
        with self.assertRaises(UnauthorizedError):
            client.list()

    def test_a_used_up_quota_serves_copies_raises_usage_limit_exceeded_for_the_rest_and_makes_no_request_until_the_reset(self) -> None:
        client = self.client(TINY_KEY)
        client.get("welcome-email")
        client.get("summary")
        quota = client.quota
        assert quota is not None
        self.assertEqual((quota.limit, quota.remaining), (2, 0))

        self.clock.now += TTL
        self.assertEqual(client.get("welcome-email").source, "cache")
        client.idle()
        with self.assertRaises(UsageLimitExceededError) as raised:
            client.get("extra")
        self.clock.now += 10 * TTL
        self.assertEqual(client.get("summary").source, "cache")
        client.idle()

        error = raised.exception
        self.assertEqual((error.usage.used, error.usage.limit, error.upgrade_url), (2, 2, "https://prompts.example.test/upgrade"))
        now = datetime.now(timezone.utc)
        self.assertEqual(error.resets_at, datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=timezone.utc))
        self.assertServed(
            TINY_KEY,
            ["GET /prompts/welcome-email 200", "GET /prompts/summary 200", "GET /prompts/welcome-email 429"],
        )


if __name__ == "__main__":
    unittest.main()
