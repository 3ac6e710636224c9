"""AsyncPromptClient: the same cache driven from an asyncio event loop.

A call answered from memory never suspends. A request is an asyncio task that concurrent callers share
(each awaits it through ``asyncio.shield``, so one caller's cancellation never cancels it for the others);
its HTTP exchange is the threaded client's, run on the loop's default executor by ``asyncio.to_thread``:
requests are rare (one per prompt per TTL at most), so a thread for each costs nothing that matters, and
one HTTP implementation (TLS, proxies, timeouts, the redirect rule) serves both clients.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional

from ._cache import Fetch, Outcome, Ready, RequestKey, Settled, Step, label_option, request_failed, subject_option
from ._client import ClientBase, prompt_of, prompts_of, validated_get
from ._prompt import Prompt


class AsyncPromptClient(ClientBase["asyncio.Task[Outcome]"]):
    """``PromptClient``'s constructor, and its methods as coroutines, for asyncio applications. Use one per
    event loop."""

    async def get(self, prompt_id: str, version: Optional[str] = None, label: Optional[str] = None, *, subject: Optional[str] = None) -> Prompt:
        """As ``PromptClient.get``."""
        target = validated_get(prompt_id, version, label)
        subject = subject_option("get", subject)
        cache = self._cache
        with cache.lock:
            step = cache.step_moving(prompt_id, target) if version is None else cache.step_pinned(prompt_id, version)
            outcome = self._settle(step, subject)
        prompt = prompt_of(outcome if not isinstance(outcome, asyncio.Task) else await asyncio.shield(outcome))
        return prompt if version is not None else await self._decided(prompt_id, target, subject, prompt)

    async def list(self, label: Optional[str] = None, *, subject: Optional[str] = None) -> List[Prompt]:
        """As ``PromptClient.list``."""
        target = label_option("list", label)
        subject = subject_option("list", subject)
        with self._cache.lock:
            outcome = self._settle(self._cache.step_list(target), subject)
        prompts = prompts_of(outcome if not isinstance(outcome, asyncio.Task) else await asyncio.shield(outcome))
        return [await self._decided(prompt.prompt_id, target, subject, prompt) for prompt in prompts]

    async def preload(self, label: Optional[str] = None) -> None:
        """As ``PromptClient.preload``."""
        target = label_option("preload", label)
        with self._cache.lock:
            outcome = self._settle(self._cache.step_list(target))
        prompts_of(outcome if not isinstance(outcome, asyncio.Task) else await asyncio.shield(outcome))
        await self._complete_sides(target)

    async def snapshot(self) -> Dict[str, Any]:
        """As ``PromptClient.snapshot``."""
        latest = tuple(await self.list())
        with self._cache.lock:
            labels = self._cache.labels()
        for target in labels:
            await self._complete_sides(target)
        with self._cache.lock:
            return self._cache.snapshot(latest)

    async def _decided(self, prompt_id: str, target: str, subject: Optional[str], prompt: Prompt) -> Prompt:
        """The prompt a call came to, made the side its subject gets when the label rolls out."""
        if prompt.rollout is None:
            return prompt
        cache = self._cache
        with cache.lock:
            decision = cache.decide(prompt_id, target, subject, prompt)
            if isinstance(decision, Prompt):
                return decision
            outcome = self._settle(Fetch(decision.key))
        fetched = outcome if not isinstance(outcome, asyncio.Task) else await asyncio.shield(outcome)
        with cache.lock:
            settled = cache.settle_side(prompt_id, target, decision, fetched, prompt)
        return prompt_of(settled)

    async def _complete_sides(self, target: str) -> None:
        with self._cache.lock:
            outcomes = [self._settle(Fetch(key)) for key in self._cache.missing_sides(target)]
        tasks = [outcome for outcome in outcomes if isinstance(outcome, asyncio.Task)]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def idle(self) -> None:
        """Returns once no request is under way, background revalidations included."""
        while True:
            with self._cache.lock:
                tasks = list(self._cache.inflight.values())
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    def _settle(self, step: Step, subject: Optional[str] = None) -> "Outcome | asyncio.Task[Outcome]":
        """With the lock held: the outcome, or the task to await (started here if none was under way)."""
        if isinstance(step, Ready):
            key = step.revalidate
            if key is not None and key not in self._cache.inflight:
                self._start(key, subject)
            return step.value
        if isinstance(step, Settled):
            return step.outcome
        return self._cache.inflight.get(step.key) or self._start(step.key, subject)

    def _start(self, key: RequestKey, subject: Optional[str] = None) -> "asyncio.Task[Outcome]":
        task = asyncio.get_running_loop().create_task(self._run(key, subject))
        self._cache.inflight[key] = task
        return task

    async def _run(self, key: RequestKey, subject: Optional[str]) -> Outcome:
        cache = self._cache
        try:
            with cache.lock:
                request = cache.begin(key, subject)
            answer = await asyncio.to_thread(self._http.get, request.path, request.etag, request.subject, request.rollout_subject)
            with cache.lock:
                outcome = cache.finish(request, answer)
                # The sides of a rollout the answer taught, fetched in the background.
                for wanted in cache.take_wanted():
                    self._start(wanted)
                return outcome
        except Exception as error:  # noqa: BLE001 - outcomes are answers: a bug becomes an outage for the callers
            return request_failed(key, error)
        finally:
            with cache.lock:
                cache.inflight.pop(key, None)
