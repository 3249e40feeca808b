#!/usr/bin/env python3
"""Posts COUNT cards carrying TAG at a steady RATE per second and reports each post's latency.

    paced.py URL TOKENS_FILE TAG RATE COUNT

What a person posting feels, independent of throughput: one keep-alive connection, one post at a
time, started on a fixed schedule (a post that takes longer than the interval delays the next one,
which is reported). The writers take turns (TOKENS_FILE, one token a line). Prints one line:
`PACED tag=… posts=… failures=… late=… p50_ms=… p90_ms=… p99_ms=… max_ms=…`.
"""

import http.client
import json
import sys
import time
import urllib.parse


def main():
    url, tokens_file, tag, rate, count = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
    tokens = [line.strip() for line in open(tokens_file) if line.strip()]
    target = urllib.parse.urlparse(url)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    latencies, failures, late = [], 0, 0
    interval = 1.0 / rate
    start = time.monotonic()
    for index in range(count):
        scheduled = start + index * interval
        pause = scheduled - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        else:
            late += 1
        body = json.dumps({"content": f"천천히 올리는 카드 {index}", "background": {"default": "sea-calm"}, "tags": [tag]})
        began = time.monotonic()
        connection.request("POST", "/v1/cards", body=body, headers={
            "Authorization": "Bearer " + tokens[index % len(tokens)], "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        latencies.append((time.monotonic() - began) * 1000)
        if response.status != 201:
            failures += 1
    latencies.sort()

    def percentile(p):
        return latencies[min(len(latencies) - 1, int(round(p / 100 * (len(latencies) - 1))))]

    print(f"PACED tag={tag} posts={count} failures={failures} late={late} p50_ms={percentile(50):.2f} "
          f"p90_ms={percentile(90):.2f} p99_ms={percentile(99):.2f} max_ms={latencies[-1]:.2f}")


if __name__ == "__main__":
    main()
