#!/usr/bin/env python3
"""The docs as a newcomer follows them: every relative link and every section they name exists,
every command in their shell blocks is one the programs have (its subcommands and its long
options, asked of the programs' own --help), and the file formats' man pages are what
scripts/file_manpage.py makes from the shipped examples.

    python3 Tests/docs/test_docs.py [BINARIES]     (default .build/debug; `make test` runs it)
"""
import glob, os, re, shlex, subprocess, sys, tempfile, unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARIES = os.path.join(REPO, ".build", "debug")
DOCS = ["README.md", "hardware.md", "BENCHMARKS.md"] + sorted(
    os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True))
PROGRAMS = {"reveille", "reveilled", "reveille-web", "reveille-mqtt", "reveille-calendar"}


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def outside_code(text):
    """The lines of a Markdown file that are not in a fenced block."""
    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield line


def headings(path):
    with open(path) as f:
        text = f.read()
    found = set()
    for line in outside_code(text):
        m = re.match(r"#{1,6} (.+)", line)
        if m:
            found.add(m.group(1).strip())
        found.update(b.strip() for b in re.findall(r"\*\*([^*]+?)\.?\*\*", line))
    return found


def shell_lines(text):
    """Command lines of the ```sh blocks (a `$ ` prompt dropped; `# ...` comments cut)."""
    for block in re.findall(r"```(?:sh|bash|console)?\n(.*?)```", text, re.S):
        for line in block.split("\n"):
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            yield line


class DocsTests(unittest.TestCase):
    def read(self, doc):
        with open(os.path.join(REPO, doc)) as f:
            return f.read()

    def test_every_relative_link_and_its_anchor_exist(self):
        checked = 0
        for doc in DOCS:
            for line in outside_code(self.read(doc)):
                for target in re.findall(r"\]\(([^)\s]+)\)", line):
                    if re.match(r"[a-z]+:", target):
                        continue
                    path, _, anchor = target.partition("#")
                    full = os.path.normpath(os.path.join(REPO, os.path.dirname(doc), path)) if path else \
                        os.path.join(REPO, doc)
                    self.assertTrue(os.path.exists(full), f"{doc}: the link {target} leads nowhere")
                    if anchor:
                        self.assertIn(anchor, {slug(h) for h in headings(full)}, f"{doc}: no #{anchor} in {path}")
                    checked += 1
        self.assertGreater(checked, 20)

    def test_every_section_a_doc_or_the_code_names_exists(self):
        # `docs/guide/ringing.md, "Commitment"` in the docs, the settings' comments and the code.
        named = 0
        sources = DOCS + [os.path.relpath(p, REPO) for pattern in ("config/*", "systemd/*", "Sources/**/*.swift")
                          for p in glob.glob(os.path.join(REPO, pattern), recursive=True)]
        for source in sources:
            text = self.read(source)
            for path, title in re.findall(r'((?:docs/guide/[\w-]+|docs/TESTING)\.md), "([^"\n]+)"', text):
                self.assertIn(title, headings(os.path.join(REPO, path)), f"{source}: {path} has no \"{title}\"")
                named += 1
        self.assertGreater(named, 20)

    def help(self, program, words):
        result = subprocess.run([os.path.join(BINARIES, program), *words, "--help"], capture_output=True, text=True,
                                timeout=30, env={**os.environ, "REVEILLE_ROOT": self.root})
        return result.stdout if result.returncode == 0 else None

    def test_every_command_in_the_docs_is_one_the_programs_have(self):
        self.root = tempfile.mkdtemp(prefix="reveille-docs.")
        cache, checked = {}, 0
        for doc in DOCS:
            for line in shell_lines(self.read(doc)):
                line = line.split("  #")[0].split(" # ")[0]
                for command in re.split(r"\s*(?:;|&&|\|\|?)\s*", line):
                    try:
                        words = shlex.split(command)
                    except ValueError:
                        continue
                    # `sudo`, `sudo -u USER`: the command after them.
                    while words and words[0] == "sudo":
                        words = words[3:] if words[1:2] == ["-u"] else words[1:]
                    if not words or words[0] not in PROGRAMS:
                        continue
                    program, rest = words[0], words[1:]
                    # The subcommands: the longest run of words the program's help takes.
                    path = []
                    for word in rest:
                        if not re.match(r"^[a-z][a-z-]*$", word):
                            break
                        key = (program, tuple(path + [word]))
                        if key not in cache:
                            out = self.help(program, path + [word])
                            cache[key] = out if out and f"USAGE: {program} " in out and " ".join(
                                path + [word]) in out.split("USAGE:")[1].split("\n")[0] else None
                        if cache[key] is None:
                            break
                        path.append(word)
                    key = (program, tuple(path))
                    if key not in cache:
                        cache[key] = self.help(program, path)
                    usage = cache[key]
                    self.assertIsNotNone(usage, f"{doc}: `{command}`: {program} {' '.join(path)} --help fails")
                    for option in (w.split("=")[0] for w in rest if w.startswith("--")):
                        self.assertIn(option, usage, f"{doc}: `{command}`: {program} {' '.join(path)} has no {option}")
                    checked += 1
        self.assertGreater(checked, 50, "the docs' commands were not found")
        print(f"{checked} commands checked, {len(cache)} helps asked", file=sys.stderr)

    def test_the_file_formats_man_pages_are_made_from_the_examples(self):
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([sys.executable, os.path.join(REPO, "scripts", "file_manpage.py"), folder], check=True)
            for name in ("reveille.toml.5", "apps.toml.5"):
                with open(os.path.join(folder, name)) as made, open(os.path.join(REPO, "man", name)) as kept:
                    self.assertEqual(made.read(), kept.read(), f"man/{name} is stale: run make man")

    def test_the_readme_is_what_a_newcomer_needs(self):
        readme = self.read("README.md")
        self.assertLess(len(readme.split("\n")), 300, "the README grew past a newcomer's page")
        for section in ("## Two commands", "## A five-minute tour", "## The manual"):
            self.assertIn(section, readme)


if __name__ == "__main__":
    if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]):
        BINARIES = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
