#!/usr/bin/env python3
"""Writes link/reveilled.order: the functions a release reveilled runs on a day of
its life, which the linker (lld's --symbol-ordering-file, set in Package.swift) puts side by side
at the start of the code.

Why: the executable carries the Swift runtime, Foundation and GRDB, about 18 MB of code, of which
the daemon runs about 1.6 MB. Scattered through the file, that 1.6 MB pulled 14.6 MB of code
pages into the daemon's memory (the kernel maps file pages around each fault: 64 KB or a whole
large folio). Side by side, the same functions fit in a few MB: see BENCHMARKS.md, issue 3.

How: the daemon runs under valgrind's callgrind (which records every function called) through a
workload: start, requests of every kind from the CLI, alarms added, rings dismissed by math and by
a tag on the emulated PN532 reader, a snooze, an app of the policy launched under the fanotify
guard (as root), stop. The functions it saw, in the order it listed them, become the file.
A function missing from the file still works; it only sits elsewhere. Run `make order-file` after
changes that move much code (a new dependency, a new toolchain), then `make bench` to check.
"""
import os, re, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(__file__))
from bench_ring import BIN, current_problem, daemon_status, request, send_answer, solve, start_daemon  # noqa: E402
from bench_nfc import UID, Emulator, reader_settings  # noqa: E402

ROOT_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ORDER_FILE = os.path.join(ROOT_DIR, "link", "reveilled.order")


def cli(root, *args):
    done = subprocess.run([os.path.join(BIN, "reveille"), "--root", root, *args], capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        print(f"note: reveille {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")


def wait_for(sock, ringing):
    for _ in range(1200):
        if bool(daemon_status(sock).get("session")) == ringing:
            return
        time.sleep(0.1)
    sys.exit(f"the daemon under valgrind did not {'ring' if ringing else 'stop'} within 2 minutes")


def dismiss_by_math(sock):
    problem = current_problem(sock)
    send_answer(sock, solve(problem) + 1)  # a wrong answer: a new problem
    problem = current_problem(sock)
    assert send_answer(sock, solve(problem))


def workload(root, sock, emulator):
    cli(root, "status")
    for i in range(10):
        cli(root, "alarm", "add", f"{(7 + i // 4) % 24:02d}:{(i * 7) % 60:02d}", "--days", "mon-fri", "--label", f"a{i}")
    cli(root, "rule", "add", "--days", "sat", "--off")
    cli(root, "override", "add", "tomorrow", "--at", "08:30", "--alarm", "1")
    for args in (["alarm", "list"], ["next", "--days", "14"], ["history"], ["stats"], ["sound", "devices"],
                 ["tag", "list"], ["apps", "status"], ["apps", "check", "true-app"], ["doctor"]):
        cli(root, *args)
    # A ring dismissed by math, after a snooze.
    assert request(sock, {"alarmAdd": {"spec": {"inSeconds": 2, "fadeInSeconds": 2}}})["ok"]
    wait_for(sock, True)
    cli(root, "status")
    request(sock, {"snooze": {}})
    dismiss_by_math(sock)
    wait_for(sock, False)
    # A ring dismissed by the tag.
    assert request(sock, {"tagAdd": {"label": "bathroom", "uid": UID, "timeoutSeconds": 5}})["ok"]
    assert request(sock, {"alarmAdd": {"spec": {"inSeconds": 2, "challenge": "nfc"}}})["ok"]
    wait_for(sock, True)
    time.sleep(2)
    emulator.say(f"present {UID}")
    wait_for(sock, False)
    emulator.say("remove")
    # An app of the policy started, under the guard when root.
    for _ in range(3):
        try:
            subprocess.run(["/bin/true"], timeout=120)
        except PermissionError:  # denied by the guard (a minute before midnight): still trained
            pass
    cli(root, "apps", "status")
    cli(root, "history")
    time.sleep(5)


def main():
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed: scripts/install-deps.sh order (as root) installs it")
    work = tempfile.mkdtemp(prefix="reveille-order.")
    # valgrind 3.19 (Debian 12) cannot read the toolchain's DWARF 5: a copy without debug info,
    # whose symbol table is all callgrind needs.
    daemon = os.path.join(work, "reveilled")
    subprocess.run(["strip", "--strip-debug", "-o", daemon, os.path.join(BIN, "reveilled")], check=True)
    out = os.path.join(work, "callgrind.out")
    root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "etc/reveille"))
    with open(os.path.join(root, "etc/reveille/apps.toml"), "w") as f:
        f.write('[[app]]\nname = "true-app"\npaths = ["/bin/true"]\nwindows = ["00:00-23:59"]\n')
    os.chmod(os.path.join(root, "etc/reveille/apps.toml"), 0o644)
    link = os.path.join(work, "pn532")
    emulator = Emulator(link)
    wrapper = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", daemon]
    proc, sock = start_daemon(root, "--time-zone", "Europe/Berlin", settings=reader_settings(link),
                              command=wrapper, wait_seconds=120)
    try:
        workload(root, sock, emulator)
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=120)
        emulator.close()
    seen, names = set(), []
    with open(out, errors="replace") as f:
        for line in f:
            match = re.match(r"c?fn=\(\d+\) (\S+)", line)
            if match and match.group(1) not in seen:
                seen.add(match.group(1))
                names.append(match.group(1))
    # Functions defined once. A local helper such as `objectdestroyTm` is defined in hundreds of
    # objects, and the linker would move every object's whole code section to the front with it.
    definitions = {}
    listing = subprocess.run(["nm", "--defined-only", daemon], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 3:
            definitions[parts[2]] = definitions.get(parts[2], 0) + (1 if parts[1] in "tTwW" else 2)
    ordered = [name for name in names if definitions.get(name) == 1]
    with open(ORDER_FILE, "w") as f:
        f.write("# The functions reveilled runs, side by side at the start of its code (lld's\n"
                "# --symbol-ordering-file, see Package.swift). Written by scripts/order_file.py\n"
                "# (make order-file): do not edit by hand.\n")
        f.write("\n".join(ordered) + "\n")
    shutil.rmtree(work)
    print(f"{ORDER_FILE}: {len(ordered)} functions")


if __name__ == "__main__":
    main()
