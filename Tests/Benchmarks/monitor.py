#!/usr/bin/env python3
"""Samples the server and its PostgreSQL during a timed phase (read-only, from /proc).

Every --interval seconds for --duration seconds: the soom process's RSS, and the PSS of the
PostgreSQL postmaster and all its children (PSS, because shared buffers would be counted
once per backend in RSS). At the end, CPU used during the window, in cores (1.0 = one core
busy all the time): soom, postgres, wrk, everything else (cpu_other: other work on the
machine skews the numbers) and the whole machine. Prints one line
`MONITOR key=value ...`.
"""

import argparse
import os
import time

TICKS = os.sysconf("SC_CLK_TCK")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def stat(pid):
    """(comm, ppid, utime+stime ticks) or None."""
    text = read(f"/proc/{pid}/stat")
    if text is None:
        return None
    comm = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return comm, int(fields[1]), int(fields[11]) + int(fields[12])


def memory_kb(pid, key):
    text = read(f"/proc/{pid}/smaps_rollup" if key == "Pss" else f"/proc/{pid}/status") or ""
    for line in text.splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def machine_busy():
    fields = [int(x) for x in (read("/proc/stat") or "").splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields[:8]) - idle


def processes():
    result = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat(int(name))
            if s:
                result[int(name)] = s
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid", type=int, required=True, help="the soom server")
    parser.add_argument("--pg-pid", type=int, default=0, help="the PostgreSQL postmaster (0: none)")
    parser.add_argument("--duration", type=float, required=True)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()

    def groups(table):
        """CPU ticks per process, tagged soom / postgres / wrk."""
        tagged = {}
        for pid, (comm, ppid, ticks) in table.items():
            if pid == args.pid:
                tagged[pid] = ("soom", ticks)
            elif args.pg_pid and (pid == args.pg_pid or ppid == args.pg_pid):
                tagged[pid] = ("postgres", ticks)
            elif comm == "wrk":
                tagged[pid] = ("wrk", ticks)
        return tagged

    start_time, start_busy = time.time(), machine_busy()
    start_table = processes()
    start = groups(start_table)
    soom_rss, pg_pss = [], []
    last, table = start, start_table
    end = start_time + args.duration
    while time.time() < end:
        time.sleep(min(args.interval, max(0.0, end - time.time())))
        table = processes()
        last = groups(table)
        soom_rss.append(memory_kb(args.pid, "VmRSS"))
        if args.pg_pid:
            pg_pss.append(sum(memory_kb(pid, "Pss") for pid, (tag, _) in last.items() if tag == "postgres"))
    elapsed = time.time() - start_time
    busy = machine_busy() - start_busy

    cpu = {"soom": 0, "postgres": 0, "wrk": 0}
    for pid, (tag, ticks) in last.items():
        before = start.get(pid, (tag, 0))[1]  # a process born in the window started at 0
        cpu[tag] += ticks - before

    def cores(ticks):
        return ticks / TICKS / elapsed

    # The biggest other CPU users (by process name), to tell what skewed a run.
    others = {}
    for pid, (comm, _, ticks) in table.items():
        if pid not in last:
            before = start_table[pid][2] if pid in start_table else 0
            others[comm] = others.get(comm, 0) + ticks - before
    top = sorted(((t, c) for c, t in others.items() if cores(t) >= 0.02), reverse=True)[:4]
    other_top = ",".join(f"{c.replace(' ', '_')}:{cores(t):.2f}" for t, c in top) or "-"

    mb = lambda kb: kb / 1024
    print(
        "MONITOR "
        f"soom_rss_max_mb={mb(max(soom_rss, default=0)):.0f} soom_rss_end_mb={mb(soom_rss[-1] if soom_rss else 0):.0f} "
        f"pg_pss_max_mb={mb(max(pg_pss, default=0)):.0f} "
        f"cpu_soom={cores(cpu['soom']):.2f} cpu_postgres={cores(cpu['postgres']):.2f} cpu_wrk={cores(cpu['wrk']):.2f} "
        f"cpu_other={max(0.0, cores(busy - sum(cpu.values()))):.2f} cpu_machine={cores(busy):.2f} cores={os.cpu_count()} window_s={elapsed:.1f} other_top={other_top}",
        flush=True,
    )


if __name__ == "__main__":
    main()
