#!/usr/bin/env python3
"""Every relative link in the docs points at a file that exists and, with #anchor, at a heading in it.

The docs are every .md file git tracks, and those not yet added that it does not ignore, so a new doc is
checked before its first commit."""
import os
import re
import subprocess
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCS = sorted(
    subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md"],
        check=True, capture_output=True, text=True,
    ).stdout.splitlines()
)


def slug(heading):
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    """The anchors of a file's headings; a line starting with # inside a fenced code block is no heading."""
    found, fenced = set(), False
    with open(path) as file:
        for line in file:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and (m := re.match(r"^#+\s+(.*)", line)):
                found.add(slug(m.group(1)))
    return found


problems = []
for doc in DOCS:
    with open(doc) as file:
        text = file.read()
    for match in re.finditer(r"\]\(([^)\s]+)\)", text):
        link = match.group(1)
        if re.match(r"^[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(target):
            problems.append(f"{doc}: link to a missing file: {link}")
        elif anchor and target.endswith(".md") and anchor not in anchors(target):
            problems.append(f"{doc}: link to a missing heading: {link}")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
