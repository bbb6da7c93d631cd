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
