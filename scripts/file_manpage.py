#!/usr/bin/env python3
"""The man pages of Reveille's two files, reveille.toml(5) and apps.toml(5), made from the
commented examples the package ships (config/reveille.toml, config/apps.toml), so that a setting
is described in one place. Run it after changing an example: it writes man/, which is committed
and installed; Tests/docs/test_docs.py fails while the committed pages are not what it makes.

    scripts/file_manpage.py [OUTDIR]      (default man/)
"""
import os, sys

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PAGES = {
    "reveille.toml": ("Reveille's settings", "config/reveille.toml", "/etc/reveille/reveille.toml",
                      "The daemon reads it at start, and again at 'systemctl reload reveille' (SIGHUP), when it "
                      "starts again in place with it. A misspelt key, a wrong type or a value out of range "
                      "stops a start with the file, the line and the fix; at a reload such a file is refused "
                      "and the settings in force stay. A file that would weaken a committed ring waits until "
                      "after that ring. Every setting is optional: without the file, the embedded defaults "
                      "apply. Under --root DIR it is DIR/etc/reveille/reveille.toml.",
                      "docs/guide/settings.md"),
    "apps.toml": ("Reveille's app policy", "config/apps.toml", "/etc/reveille/apps.toml",
                  "The app time windows and daily limits the daemon enforces with fanotify. It must be "
                  "root's and writable by no one else. It is read again whenever it is saved: a change is "
                  "merged into the policy in force app by app, and a file with an error is refused whole, "
                  "with its line, the policy in force staying. 'reveille apps validate FILE' checks a file; "
                  "'reveille apps export' prints the policy in force in this form.",
                  "docs/guide/apps.md"),
}


def roff(text):
    out = text.replace("\\", "\\e")
    if out.startswith(".") or out.startswith("'"):
        out = "\\&" + out
    return out


def page(name, title, source, path, description, guide):
    with open(os.path.join(REPO, source)) as f:
        example = f.read().rstrip("\n").split("\n")
    lines = [
        f'.TH "{name.upper()}" "5" "" "Reveille" "File formats"',
        ".SH NAME",
        f"{name} \\- {title}",
        ".SH SYNOPSIS",
        roff(path),
        ".SH DESCRIPTION",
        roff(description),
        ".PP",
        "The file is TOML. Below is the example installed with the package, every setting in it with "
        "its default and what it does; a line that begins with # is a comment, and a setting "
        "commented out has its default value.",
        ".SH EXAMPLE",
        ".nf",
    ] + [roff(line) for line in example] + [
        ".fi",
        ".SH FILES",
        roff(path),
        ".br",
        roff(f"/usr/share/doc/reveille/{os.path.basename(source)}.example"),
        ".SH SEE ALSO",
        "reveille(1), reveilled(8), the guide: " + roff(f"/usr/share/doc/reveille/{guide[len('docs/'):]}"),
    ]
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "man")
    os.makedirs(out, exist_ok=True)
    for name, spec in PAGES.items():
        with open(os.path.join(out, name + ".5"), "w") as f:
            f.write(page(name, *spec))


if __name__ == "__main__":
    main()
