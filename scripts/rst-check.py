#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Parse each reStructuredText file named on the command line with docutils
and print every warning or error (a malformed table, a broken title, an
unmatched inline markup...), each as FILE:LINE: (LEVEL) message. Sphinx's own directives
(the kernel's kernel-doc) are known to the kernel's build, not to docutils:
they are accepted without being checked. Exit 1 if anything was printed."""
import sys

import docutils.core
import docutils.nodes
from docutils.parsers.rst import Directive, directives


class Accepted(Directive):
    """A Sphinx directive: its arguments and options are not ours to check."""
    has_content = True
    optional_arguments = 9
    final_argument_whitespace = True
    option_spec = None

    def run(self):
        return []


class AnyOption(dict):
    def __missing__(self, key):
        return directives.unchanged


Accepted.option_spec = AnyOption()
SPHINX_DIRECTIVES = ("kernel-doc", "toctree")


def check(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = docutils.core.publish_doctree(
        text, source_path=path,
        settings_overrides={"report_level": 5, "halt_level": 5})
    found = 0
    for msg in doc.findall(docutils.nodes.system_message):
        if msg["level"] < 2:
            continue
        print(msg.astext().splitlines()[0])
        found += 1
    return found


def main():
    for name in SPHINX_DIRECTIVES:
        directives.register_directive(name, Accepted)
    bad = sum(check(p) for p in sys.argv[1:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
