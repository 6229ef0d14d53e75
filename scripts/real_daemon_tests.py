#!/usr/bin/env python3
"""Lists the daemon test functions that start a real `reveilled`, and counts them.

A test starts one when its body, or a helper it calls (followed through the test sources),
constructs a `DaemonHarness(`; a helper is a function, or a type whose initializer constructs one
(`Bedside()`). A test on `SharedDaemon.unchanged` is not counted: that one
daemon is started once for the whole test process. Usage: scripts/real_daemon_tests.py [-v]
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "Tests" / "ReveilleDaemonTests"
FUNC = re.compile(r"(?:private |fileprivate |static |mutating |@discardableResult )*func (\w+)")
TYPE = re.compile(r"(?:final )?(?:class|struct) (\w+)")
INIT = re.compile(r"\binit\(")


def braced(text, start):
    """The text from the first brace at or after `start` to its matching brace."""
    start = text.find("{", start)
    if start < 0:
        return ""
    depth, index = 0, start
    while index < len(text):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                break
        index += 1
    return text[start:index + 1]


def starting_types(text):
    """Names of the types whose initializer constructs a DaemonHarness."""
    for match in TYPE.finditer(text):
        body = braced(text, match.end())
        for init in INIT.finditer(body):
            if "DaemonHarness(" in braced(body, init.end()):
                yield match.group(1)
                break


def bodies(text):
    """Yields (name, is_test, body) for each func in a file, matching braces."""
    for match in FUNC.finditer(text):
        body = braced(text, match.end())
        if not body:
            continue
        attribute = text.rfind("@Test", 0, match.start())
        is_test = attribute >= 0 and "func " not in text[attribute:match.start()]
        yield match.group(1), is_test, body


def main():
    functions = []
    types = set()
    for path in sorted(ROOT.rglob("*.swift")):
        text = path.read_text()
        types.update(name for name in starting_types(text) if name not in ("DaemonHarness", "SharedDaemon"))
        for name, is_test, body in bodies(text):
            functions.append((path.name, name, is_test, body))
    starts = {name for _, name, _, body in functions if "DaemonHarness(" in body and "SharedDaemon" not in name}
    starts |= types
    changed = True
    while changed:
        changed = False
        for _, name, _, body in functions:
            if name in starts:
                continue
            if any(re.search(r"\b" + re.escape(helper) + r"\s*\(", body) for helper in starts):
                starts.add(name)
                changed = True
    tests = sorted({(file, name) for file, name, is_test, _ in functions if is_test and name in starts})
    if "-v" in sys.argv:
        for file, name in tests:
            print(f"{file}: {name}")
    print(len(tests))


main()
