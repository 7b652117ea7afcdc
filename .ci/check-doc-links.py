#!/usr/bin/env python3
"""Every relative link in the docs points at a file that exists and, with #anchor, at a heading in it."""
import os
import re
import sys

DOCS = ["README.md", "manifests/README.md", "docs/authoring.md"]


def slug(heading):
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    with open(path) as file:
        return {slug(m.group(1)) for m in (re.match(r"^#+\s+(.*)", line) for line in file) if m}


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
