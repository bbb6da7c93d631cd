# SPDX-License-Identifier: ISC
"""tlsgate.conf(5) documents exactly the keys confkeys.c accepts, and the
default it gives each is the one `tlsgate -t` prints for a file that sets
nothing.  A key added to confkeys.c without the page, a key the page keeps
after confkeys.c dropped it, or a default changed on one side only fails
here."""
import os
import re
import subprocess
import tempfile
import unittest

from harness import BIN, ROOT, SLOW, WRAP

PAGE = os.path.join(ROOT, "man", "tlsgate.conf.5")


def config_c_keys():
    with open(os.path.join(ROOT, "src", "confkeys.c")) as f:
        return re.findall(r'^\s*\{\s*"([a-z0-9_]+)",\s*K_[A-Z]+\s*,', f.read(),
                          re.M)


def page_entries(small=False):
    """{key: default or None} from the two key lists of the page; with
    small, the conf/small build profile's where the page gives one."""
    with open(PAGE) as f:
        text = f.read()
    body = text.split(".Ss Global keys")[1].split("\n.Sh ")[0]
    entries = {}
    for chunk in re.split(r"^\.It Cm ", body, flags=re.M)[1:]:
        key = chunk.split()[0]
        m = re.search(r"^Default\n\.Ql (.+?)(?: [;.,])?$", chunk, re.M)
        s = re.search(r"^\(conf/small: ([^)]+)\)", chunk, re.M)
        if small and s:
            entries[key] = s.group(1)
        elif m:
            entries[key] = m.group(1)
        elif re.search(r"^Default: none\b", chunk, re.M):
            entries[key] = None
        else:
            entries[key] = "(no default given)"
    return entries


class ConfManual(unittest.TestCase):

    def test_page_names_exactly_the_keys_config_c_accepts(self):
        keys = config_c_keys()
        self.assertGreater(len(keys), 40)
        documented = page_entries()
        self.assertEqual(sorted(set(keys) - set(documented)), [],
                         "keys config.c accepts that tlsgate.conf(5) lacks")
        self.assertEqual(sorted(set(documented) - set(keys)), [],
                         "keys tlsgate.conf(5) names that config.c lacks")

    def test_each_default_is_what_dash_t_prints(self):
        with tempfile.TemporaryDirectory() as d:
            # The compiled-in cert and key are relative: make them here.
            subprocess.run(WRAP + [BIN, "-g"], cwd=d, check=True,
                           capture_output=True, timeout=30 * SLOW)
            out = subprocess.run(WRAP + [BIN, "-t"], cwd=d, check=True,
                                 capture_output=True, text=True,
                                 timeout=30 * SLOW).stdout
        printed = {}
        for line in out.split("# certificates")[0].splitlines():
            m = re.fullmatch(r"([a-z0-9_]+) =(?: (.*))?", line)
            if m:
                printed[m.group(1)] = (m.group(2) or "").strip()
        self.assertIn("slots", printed)
        small = printed["slots"] == page_entries(small=True)["slots"]
        wrong = []
        for key, want in sorted(page_entries(small).items()):
            got = printed.get(key)
            if want is None:
                if got and got != "none":
                    wrong.append("%s: page none, -t %r" % (key, got))
                continue
            if got is None:
                wrong.append("%s: page %r, -t prints nothing" % (key, want))
            elif want != got:
                wrong.append("%s: page %r, -t %r" % (key, want, got))
        self.assertEqual(wrong, [])


if __name__ == "__main__":
    unittest.main()
