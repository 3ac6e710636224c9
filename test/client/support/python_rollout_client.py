"""The Python client at a rolling-out label, for test/client/rollout-stack.test.ts: reads ``{"url",
"promptId", "label", "subjects"}`` as JSON on stdin (the key from PROMPTS_API_KEY only), warms the client
with the first subject, then gets the prompt for every subject and writes, as JSON on stdout, the version
and the rollout side each one got."""

import json
import os
import sys

sys.path.insert(0, sys.argv[1])

from prompt_retrieval import PromptClient  # noqa: E402

request = json.load(sys.stdin)
client = PromptClient(request["url"], os.environ["PROMPTS_API_KEY"])
subjects = request["subjects"]
client.get(request["promptId"], label=request["label"], subject=subjects[0])
client.idle(30)
answers = []
for subject in subjects:
    prompt = client.get(request["promptId"], label=request["label"], subject=subject)
    answers.append({"version": prompt.version, "side": prompt.rollout.side if prompt.rollout else None, "source": prompt.source})
client.idle(30)
json.dump(answers, sys.stdout)
