"""The Python client's benchmark (``npm run bench:python``): what a cached call costs in-process, and how
many API requests (each one a quota unit) an application makes through the client from 8 threads. The
API is ``npm start``, started here on free ports with a seed of its own; requests are counted from its
request log. Writes bench/PYTHON-CLIENT.md.

The simulated run takes the clock from the calls themselves: 10,000 gets spread over 5 simulated
minutes (30 ms of simulated time per get, whichever thread makes it), so the run takes seconds and its
counts do not depend on how fast this machine is. The real-time run uses the wall clock and a 1 s TTL.
"""

from __future__ import annotations

import asyncio
import os
import platform
import secrets
import sys
import threading
import time
import timeit
from collections import Counter
from typing import Any, Callable, Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "client-python", "src"))
sys.path.insert(0, os.path.join(ROOT, "client-python"))

from prompt_retrieval import AsyncPromptClient, PromptClient  # noqa: E402
from tests.support.local_stack import LocalStack  # noqa: E402

PROMPTS = [f"p-{index:02d}" for index in range(20)]
GETS = 10_000
THREADS = 8
SIMULATED_SECONDS = 5 * 60.0
TTL = 60.0
TIMED_CALLS = 200_000
REAL_SECONDS = 5.0
REAL_TTL = 1.0


def seed(keys: List[str]) -> Dict[str, Any]:
    config = {"model": "gpt-4o-mini", "temperature": 0.3, "schema": [], "inputData": None, "inputDataRootName": None}
    return {
        "accounts": [
            {
                "accountId": "bench-python",
                "name": "Python client benchmark",
                "plan": "pro",
                "keys": [{"apiKey": key, "monthlyLimit": 1_000_000} for key in keys],
                "prompts": [
                    {
                        "promptId": prompt_id,
                        "promptName": prompt_id,
                        "versions": [
                            {
                                "version": number,
                                "published": True,
                                "systemMessage": f"You answer for ${{company}}, version {number}.",
                                "userMessage": "Answer the customer ${name} about ${topic}. " * 4,
                                "config": config,
                            }
                            for number in ("1.0.0", "1.1.0")
                        ],
                    }
                    for prompt_id in PROMPTS
                ],
            }
        ]
    }


def per_call(call: Callable[[], object]) -> float:
    """Microseconds per call: the best of 5 timeit repeats of TIMED_CALLS calls."""
    call()
    return min(timeit.repeat(call, number=TIMED_CALLS, repeat=5)) / TIMED_CALLS * 1e6


def latency(base_url: str, key: str) -> List[Tuple[str, str]]:
    client = PromptClient(base_url, key)
    client.preload()
    client.get("p-00", version="1.0.0")
    prompt = client.get("p-00")
    values = {"company": "Acme", "name": "Ada", "topic": "billing"}
    rows = [
        ("`get` (latest, cached and fresh)", per_call(lambda: client.get("p-07"))),
        ("`get` (pinned version, cached)", per_call(lambda: client.get("p-00", version="1.0.0"))),
        ("`compile` (3 variables, about 250 characters)", per_call(lambda: prompt.compile(**values))),
    ]
    async_client = AsyncPromptClient(base_url, key)

    async def async_rows() -> float:
        await async_client.preload()
        started = time.perf_counter()
        for _ in range(TIMED_CALLS):
            await async_client.get("p-07")
        return (time.perf_counter() - started) / TIMED_CALLS * 1e6

    rows.append(("`await AsyncPromptClient.get` (latest, cached, awaited in a loop)", asyncio.run(async_rows())))
    return [(name, f"{micros:.2f}") for name, micros in rows]


def simulated(base_url: str, key: str, preload: bool) -> None:
    """10,000 gets, round-robin over 20 prompts, from 8 threads at once: each thread takes the next call
    of the sequence, and each call taken moves the shared simulated clock on by 30 ms. A thread waits for
    any request under way before it takes its next call, as a request of a few milliseconds would be
    answered in 30 ms of real time."""
    taken = [0]
    lock = threading.Lock()
    start = time.time()
    step = SIMULATED_SECONDS / GETS
    client = PromptClient(base_url, key, ttl_seconds=TTL, clock=lambda: start + taken[0] * step)
    if preload:
        client.preload()

    def work(_: int) -> None:
        while True:
            with lock:
                index = taken[0]
                if index >= GETS:
                    return
                taken[0] += 1
            client.get(PROMPTS[index % len(PROMPTS)])
            client.idle()

    run_threads(work)
    client.idle()


def real_time(base_url: str, key: str) -> int:
    """8 threads getting round-robin for REAL_SECONDS of wall-clock time with a 1 s TTL; returns the gets made."""
    client = PromptClient(base_url, key, ttl_seconds=REAL_TTL)
    made = [0] * THREADS
    deadline = time.monotonic() + REAL_SECONDS

    def work(offset: int) -> None:
        index = offset
        while time.monotonic() < deadline:
            client.get(PROMPTS[index % len(PROMPTS)])
            index += 1
            made[offset] += 1

    run_threads(work)
    client.idle()
    return sum(made)


def run_threads(work: Callable[[int], None]) -> None:
    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def kinds(served: List[str]) -> str:
    counted = Counter(f"{'list' if line.split()[1] == '/prompts' else 'get'} {line.split()[2]}" for line in served)
    return ", ".join(f"{count} {kind}" for kind, count in sorted(counted.items(), key=lambda item: (item[0].split()[0], item[0])))


def main() -> None:
    keys = ["prs_bench_python_" + secrets.token_urlsafe(24) for _ in range(4)]
    latency_key, get_key, preload_key, real_key = keys
    stack = LocalStack(seed(keys))
    try:
        rows = latency(stack.api_url, latency_key)
        simulated(stack.api_url, get_key, preload=False)
        simulated(stack.api_url, preload_key, preload=True)
        real_gets = real_time(stack.api_url, real_key)
        time.sleep(1)
        requests = [
            ("plain HTTP on every call (no client)", f"{GETS:,}", "one per call, by definition (not run)"),
            (f"`get` only, {THREADS} threads", *counted(stack.requests_of(get_key))),
            (f"`preload()` once, then `get`, {THREADS} threads", *counted(stack.requests_of(preload_key))),
        ]
        real = counted(stack.requests_of(real_key))
    finally:
        stack.remove()

    command = "npm run bench:python"
    report = f"""# The Python client's benchmark

Written by `{command}` (`python3 bench/python-client.py`): the Python client (`client-python/`) against
`npm start`, started by the script on free ports with a seed of its own (20 prompts, two versions each).
Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores shared with whatever
else the machine was doing; figures move with load, the request counts do not.

## A cached call

Each figure is the best of 5 runs of {TIMED_CALLS:,} calls (`timeit`), in microseconds per call; the goal
for a cached `get` is under 5 µs.

| call | µs per call |
|---|---|
""" + "".join(f"| {name} | {micros} |\n" for name, micros in rows) + f"""
## Requests made

{GETS:,} `get` calls round-robin over 20 prompts from {THREADS} threads at once, with the default TTL of
60 s, spread over 5 simulated minutes: each thread takes the next call of the sequence, and the client's
clock moves 30 ms on with every call taken (a thread waits for any request under way before it takes its
next call, as a request of a few milliseconds is answered within 30 ms of real time). The goal, as for the TypeScript client (bench/RESULTS.md): one request per prompt per TTL.

| client use | API requests | what they were |
|---|---|---|
""" + "".join(f"| {name} | {count} | {detail} |\n" for name, count, detail in requests) + f"""
In real time: {THREADS} threads calling `get` round-robin over the 20 prompts as fast as they can for
{REAL_SECONDS:g} s with a TTL of {REAL_TTL:g} s made {real_gets:,} calls and {real[0]} requests ({real[1]}):
at most one per prompt per TTL, as background revalidations are coalesced.
"""
    with open(os.path.join(ROOT, "bench", "PYTHON-CLIENT.md"), "w", encoding="utf-8") as file:
        file.write(report)
    print(report)


def counted(served: List[str]) -> Tuple[str, str]:
    return str(len(served)), kinds(served)


if __name__ == "__main__":
    main()
