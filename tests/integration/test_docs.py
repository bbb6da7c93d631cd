# SPDX-License-Identifier: ISC
"""Every relative link of README.md and docs/*.md names a file of the
tree, and an anchor in it names one of its headings, so that moving a
section or a file without its links fails here."""
import glob
import os
import re
import unittest

from harness import ROOT

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path):
    with open(path) as f:
        heads = re.findall(r"^#+ (.*)$", f.read(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in heads}


class DocLinks(unittest.TestCase):

    def test_every_relative_link_resolves(self):
        pages = [os.path.join(ROOT, "README.md")] + sorted(
            glob.glob(os.path.join(ROOT, "docs", "*.md")))
        self.assertGreater(len(pages), 5)
        bad, n = [], 0
        for page in pages:
            with open(page) as f:
                text = f.read()
            for href in LINK.findall(text):
                if re.match(r"[a-z]+:", href):
                    continue
                n += 1
                path, _, frag = href.partition("#")
                target = os.path.normpath(os.path.join(
                    os.path.dirname(page), path)) if path else page
                if not os.path.exists(target):
                    bad.append("%s: %s" % (os.path.relpath(page, ROOT), href))
                elif frag and frag not in anchors(target):
                    bad.append("%s: %s (no such heading)" % (
                        os.path.relpath(page, ROOT), href))
        self.assertGreater(n, 10)
        self.assertEqual(bad, [])


if __name__ == "__main__":
    unittest.main()


class Licence(unittest.TestCase):
    """LICENSE is ISC and every source file says so in one SPDX line,
    so that a recipe's license scanner finds it file by file."""

    SOURCE = re.compile(r"(\.(c|h|py|sh|mk|go|[58]|conf|init|procd|service|bb|js)"
                        r"|/Makefile|^Makefile|/run)$")

    def test_every_source_file_has_the_spdx_line(self):
        import subprocess
        files = subprocess.run(["git", "ls-files"], cwd=ROOT, text=True,
                               capture_output=True).stdout.split()
        if not files:
            self.skipTest("not a git checkout")
        with open(os.path.join(ROOT, "LICENSE")) as f:
            self.assertTrue(f.read().startswith("ISC License"))
        src = [f for f in files if self.SOURCE.search(f) and
               not f.startswith("tests/fuzz/") or
               re.match(r"tests/fuzz/[^/]+\.(c|h|py)$", f)]
        self.assertGreater(len(src), 200)
        missing = []
        for f in src:
            with open(os.path.join(ROOT, f), errors="replace") as fh:
                head = fh.read(400)
            if "SPDX-License-Identifier: ISC" not in head:
                missing.append(f)
        self.assertEqual(missing, [])
