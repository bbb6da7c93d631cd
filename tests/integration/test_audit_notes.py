"""The README's ledger of BearSSL internals ("Audit notes") names each
BEARSSL-INTERNAL site of the code by file:line, and no other: a site
added, moved or removed without the ledger following fails here."""
import os
import re
import unittest

from harness import ROOT


class AuditNotes(unittest.TestCase):

    def test_ledger_lists_every_marked_site_at_its_line(self):
        src = os.path.join(ROOT, "src")
        sites = set()
        for name in sorted(os.listdir(src)):
            with open(os.path.join(src, name)) as f:
                for i, line in enumerate(f, 1):
                    if "BEARSSL-INTERNAL" in line:
                        sites.add("%s:%d" % (name, i))
        self.assertGreaterEqual(len(sites), 8)
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        ledger = readme.split("### Audit notes")[1].split("\n## ")[0]
        listed = set(re.findall(r"^\| `([a-z]+\.[ch]:\d+)`", ledger, re.M))
        self.assertEqual(listed, sites)
