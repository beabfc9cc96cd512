#!/usr/bin/env python3
"""check_course_docs.py REPO: the course's lessons stay true to the code.
For every docs/course/*.md: each link [`name`](path) to a file of the
repository must reach an existing file, and when its text is an identifier
(a function, type or macro) that file must contain it as a word; each
backticked repository path (`solvers/sph.c`, `scenes/dam_break_2d.json`)
must exist (paths under out/ are outputs and are not checked). Prints one
line per problem and a summary; exits 1 when there is a problem or no
lesson at all."""
import os
import re
import sys

repo = sys.argv[1] if len(sys.argv) > 1 else "."
course = os.path.join(repo, "docs", "course")
LINK = re.compile(r"\[`([^`]+)`\]\(([^)#\s]+)(?:#[^)]*)?\)")
PATH = re.compile(r"`((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\.(?:c|h|cu|json|gp|md|sh|py|csv|obj|txt))`")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

problems, links, paths = 0, 0, 0
lessons = sorted(f for f in os.listdir(course) if f.endswith(".md")) if os.path.isdir(course) else []
for name in lessons:
    doc = os.path.join(course, name)
    text = open(doc, encoding="utf-8").read()
    for n, line in enumerate(text.split("\n"), 1):
        for label, target in LINK.findall(line):
            if target.startswith(("http:", "https:", "mailto:")):
                continue
            links += 1
            path = os.path.normpath(os.path.join(course, target))
            if not os.path.exists(path):
                print("%s:%d: [`%s`](%s): no such file" % (doc, n, label, target))
                problems += 1
            elif IDENT.match(label) and os.path.isfile(path):
                body = open(path, encoding="utf-8", errors="replace").read()
                if not re.search(r"\b%s\b" % re.escape(label), body):
                    print("%s:%d: `%s` is not in %s" % (doc, n, label, target))
                    problems += 1
        for p in PATH.findall(line):
            if p.startswith("out/") or p.startswith("/"):
                continue
            paths += 1
            if not os.path.exists(os.path.join(repo, p)):
                print("%s:%d: `%s`: no such file in the repository" % (doc, n, p))
                problems += 1
print("%d lessons, %d code links, %d paths, %d problems" % (len(lessons), links, paths, problems))
sys.exit(1 if problems or not lessons else 0)
