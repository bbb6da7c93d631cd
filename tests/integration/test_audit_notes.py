# SPDX-License-Identifier: ISC
"""docs/engine.md's ledger of BearSSL internals ("Audit notes") names each
BEARSSL-INTERNAL(tag) site of the code by its file and tag, and no other:
a site added or removed without the ledger following fails here.  A tag,
not a line number, so that an edit above a marker does not break it."""
import os
import re
import unittest

from harness import ROOT


class AuditNotes(unittest.TestCase):

    def test_ledger_lists_every_marked_site_by_file_and_tag(self):
        src = os.path.join(ROOT, "src")
        sites, bare = set(), []
        for name in sorted(os.listdir(src)):
            with open(os.path.join(src, name)) as f:
                for i, line in enumerate(f, 1):
                    if "BEARSSL-INTERNAL" not in line:
                        continue
                    m = re.search(r"BEARSSL-INTERNAL\(([a-z0-9-]+)\)", line)
                    if m:
                        sites.add((name, m.group(1)))
                    else:
                        bare.append("%s:%d" % (name, i))
        self.assertEqual(bare, [], "markers without a tag")
        self.assertGreaterEqual(len(sites), 1)
        with open(os.path.join(ROOT, "docs", "engine.md")) as f:
            doc = f.read()
        ledger = doc.split("### Audit notes")[1].split("\n## ")[0]
        listed = set(re.findall(r"^\| `([a-z0-9]+\.[ch])` `([a-z0-9-]+)`",
                                ledger, re.M))
        self.assertEqual(listed, sites)
