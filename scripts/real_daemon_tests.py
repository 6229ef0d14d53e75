#!/usr/bin/env python3
"""Lists the daemon test functions that start a real `reveilled`, and counts them, and their
cases: a parameterized test counts once per case.

A test starts one when its body, or a helper it calls (followed through the test sources),
constructs a `DaemonHarness(` or runs the daemon's program itself (`Binaries.daemon`, through
`Process`); a helper is a function, or a type whose initializer constructs one (`Bedside()`).
A test on `SharedDaemon.unchanged` is not counted: that one daemon is started once for the whole
test process. A test's cases are the product of its `arguments:` collections: an array literal's
elements, or an enum's `allCases`. Usage: scripts/real_daemon_tests.py [-v]
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


STARTS = ("DaemonHarness(", "Binaries.daemon")


def starts_daemon(body):
    return any(mark in body for mark in STARTS)


def top_level(text, separator=","):
    """`text` split at `separator` outside brackets, parentheses and strings."""
    parts, depth, current, quoted = [], 0, "", False
    for character in text:
        if character == '"':
            quoted = not quoted
        if not quoted:
            if character in "([{":
                depth += 1
            elif character in ")]}":
                depth -= 1
            elif character == separator and depth == 0:
                parts.append(current.strip())
                current = ""
                continue
        current += character
    if current.strip():
        parts.append(current.strip())
    return parts


def cases(attribute, enums):
    """How many cases `@Test(...)` runs: 1 unless it has `arguments:`."""
    inner = attribute[attribute.find("(") + 1:attribute.rfind(")")]
    found = re.search(r"arguments:\s*", inner)
    if not found:
        return 1
    count = 1
    for collection in top_level(inner[found.end():]):
        if collection.startswith("["):
            count *= len(top_level(collection[1:-1].strip().rstrip(",")))
        elif collection.endswith(".allCases") and collection[:-len(".allCases")].split(".")[-1] in enums:
            count *= enums[collection[:-len(".allCases")].split(".")[-1]]
    return count


def enum_cases(text):
    """Each enum's number of cases, by name."""
    counts = {}
    for match in re.finditer(r"enum (\w+)[^{]*", text):
        body = braced(text, match.end())
        counts[match.group(1)] = sum(len(top_level(m.group(1))) for m in re.finditer(r"^\s*case ([^:=\n]+)$", body, re.M))
    return counts


def starting_types(text):
    """Names of the types whose initializer constructs a DaemonHarness."""
    for match in TYPE.finditer(text):
        body = braced(text, match.end())
        for init in INIT.finditer(body):
            if starts_daemon(braced(body, init.end())):
                yield match.group(1)
                break


def bodies(text):
    """Yields (name, is_test, attribute, body) for each func in a file, matching braces."""
    for match in FUNC.finditer(text):
        body = braced(text, match.end())
        if not body:
            continue
        attribute = text.rfind("@Test", 0, match.start())
        is_test = attribute >= 0 and "func " not in text[attribute:match.start()]
        yield match.group(1), is_test, text[attribute:match.start()] if is_test else "", body


def main():
    functions = []
    types = set()
    enums = {}
    for path in sorted(ROOT.rglob("*.swift")):
        text = path.read_text()
        enums.update(enum_cases(text))
        types.update(name for name in starting_types(text) if name not in ("DaemonHarness", "SharedDaemon", "Binaries"))
        for name, is_test, attribute, body in bodies(text):
            functions.append((path.name, name, is_test, attribute, body))
    starts = {name for _, name, _, _, body in functions if starts_daemon(body) and "SharedDaemon" not in name}
    starts |= types
    changed = True
    while changed:
        changed = False
        for _, name, _, _, body in functions:
            if name in starts:
                continue
            if any(re.search(r"\b" + re.escape(helper) + r"\s*\(", body) for helper in starts):
                starts.add(name)
                changed = True
    tests = sorted({(file, name, cases(attribute, enums)) for file, name, is_test, attribute, _ in functions
                    if is_test and name in starts})
    if "-v" in sys.argv:
        for file, name, count in tests:
            print(f"{file}: {name}" + (f" ({count} cases)" if count > 1 else ""))
    print(f"{len(tests)} test functions, {sum(count for _, _, count in tests)} cases")


main()
