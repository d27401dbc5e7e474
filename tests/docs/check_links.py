#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Checks that every relative link in the README and docs/ resolves: the file exists and,
for `file.md#anchor`, the file has a heading with that anchor (GitHub's rule: lower case,
punctuation dropped, blanks to '-'). Links to web pages are not followed.

    check_links.py SOURCE_DIR
"""

import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")


def anchors(path):
    found = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            m = None if in_code else HEADING.match(line)
            if m:
                slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
                found.add(slug)
    return found


def problems(root):
    pages = [os.path.join(root, "README.md"), os.path.join(root, "modules", "monitor",
                                                            "README.md")]
    docs = os.path.join(root, "docs")
    pages += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    bad = []
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) \
                if file_part else page
            where = "%s: link %s" % (os.path.relpath(page, root), target)
            if not os.path.exists(dest):
                # Pictures in docs/generated/ are made by scripts/demo.sh, never committed.
                generated = os.path.join(root, "docs", "generated") + os.sep
                if not dest.startswith(generated):
                    bad.append(where + ": no such file")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append(where + ": no heading with anchor #" + anchor)
    return bad, len(pages)


def main():
    bad, count = problems(sys.argv[1] if len(sys.argv) > 1 else ".")
    for b in bad:
        print("check_links: " + b, file=sys.stderr)
    print("check_links: %d pages, %d broken link(s)" % (count, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
