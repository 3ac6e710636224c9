"""The Python client's bucket rule over many subjects at once, for test/client/bucket-agreement.test.ts:
reads ``{"rolloutId", "subjects", "percents"}`` as JSON on stdin, writes ``{"buckets", "sides"}`` as JSON
on stdout (``sides[i]`` being one letter per subject, ``t`` or ``f``, at ``percents[i]``)."""

import json
import sys

sys.path.insert(0, sys.argv[1])

from prompt_retrieval.rollout import bucket_of, side_for  # noqa: E402

request = json.load(sys.stdin)
rollout_id = request["rolloutId"]
subjects = request["subjects"]
buckets = [bucket_of(rollout_id, subject) for subject in subjects]
sides = ["".join(side_for(rollout_id, percent, subject)[0] for subject in subjects) for percent in request["percents"]]
json.dump({"buckets": buckets, "sides": sides}, sys.stdout)
