#!/usr/bin/env python3
"""Opens many notification streams (GET /v1/notifications/stream) on one server, then makes a
burst of notifications and times how long each takes to arrive on every stream.

    streams.py URL SQL_COMMAND SERVER_PID [--accounts 1000] [--per-account 5] [--bursts 3]

SQL_COMMAND runs one statement, given on its standard input, on the server's database (psql ...); sessions are made in
SQL (a token's SHA-256, as the server stores it), so no device has to sign in. Prints the
latencies (from just before the inserting statement was sent to each event's arrival), how
many arrived, and the server's resident memory with every stream open.
"""
import argparse
import asyncio
import base64
import hashlib
import os
import shlex
import subprocess
import sys
import time
import uuid


def sql(command, statement):
    done = subprocess.run(shlex.split(command), input=statement, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"SQL failed: {done.stderr}")
    return done.stdout.strip()


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def stream(host, port, token, arrivals, opened, stop):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET /v1/notifications/stream HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
                 f"Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n")[0]:
        opened.append(False)
        writer.close()
        return
    opened.append(True)
    buffer = b""
    try:
        while not stop.is_set():
            chunk = await reader.read(65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                if b"event: notification" in block:
                    arrivals.append(time.time())
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("sql")
    parser.add_argument("pid", type=int)
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--per-account", type=int, default=5)
    parser.add_argument("--bursts", type=int, default=3)
    options = parser.parse_args()
    host, port = options.url.split("//")[1].split(":")
    port = int(port)

    ids = sql(options.sql, f"SELECT id FROM accounts ORDER BY id LIMIT {options.accounts}").split()
    tokens = [base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=") for _ in ids]
    values = ",".join(f"('\\x{hashlib.sha256(token.encode()).hexdigest()}'::bytea, '{account}', now() + interval '1 day')"
                      for token, account in zip(tokens, ids))
    sql(options.sql, f"INSERT INTO sessions (token_hash, account_id, expires_at) VALUES {values}")

    arrivals, opened, stop = [], [], asyncio.Event()
    tasks = []
    started = time.time()
    for token in tokens:
        for _ in range(options.per_account):
            tasks.append(asyncio.create_task(stream(host, port, token, arrivals, opened, stop)))
            if len(tasks) % 200 == 0:
                await asyncio.sleep(0.05)
    expected = len(tokens) * options.per_account
    while len(opened) < expected and time.time() - started < 120:
        await asyncio.sleep(0.1)
    refused = opened.count(False)
    print(f"streams open: {opened.count(True)} of {expected} ({refused} refused) in {time.time() - started:.1f} s", flush=True)
    await asyncio.sleep(2)
    memory = rss_mb(options.pid)
    print(f"server RSS with every stream open: {memory:.0f} MB", flush=True)

    latencies = []
    for burst in range(options.bursts):
        before = len(arrivals)
        sent = time.time()
        sql(options.sql, f"""INSERT INTO notifications (id, recipient_id, type, until, created_at)
                             SELECT gen_random_uuid(), id, 'posting_restricted', now() + interval '1 hour', now()
                             FROM accounts WHERE id = ANY (ARRAY[{",".join(f"'{a}'" for a in ids)}]::uuid[])""")
        target = before + opened.count(True)
        while len(arrivals) < target and time.time() - sent < 20:
            await asyncio.sleep(0.01)
        got = arrivals[before:]
        latencies += [arrival - sent for arrival in got]
        print(f"burst {burst + 1}: {len(got)} of {target - before} events, last after {max(got) - sent if got else float('nan'):.3f} s",
              flush=True)
        await asyncio.sleep(1)
    stop.set()
    for task in tasks:
        task.cancel()
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000 if latencies else float("nan")
    print(f"delivery latency over {len(latencies)} events: p50 {pct(50):.0f} ms, p99 {pct(99):.0f} ms, max {pct(100):.0f} ms")
    print(f"RESULT streams={opened.count(True)} rss_mb={memory:.0f} p50_ms={pct(50):.0f} p99_ms={pct(99):.0f} "
          f"received={len(latencies)} expected={opened.count(True) * options.bursts}")


asyncio.run(main())
