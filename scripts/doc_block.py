#!/usr/bin/env python3
"""Replace a generated block of a doc: the lines between `<!-- NAME:begin (SCRIPT) -->` and
`<!-- NAME:end -->` become stdin. Usage: doc_block.py DOC NAME < content. Exits 2 when the markers
are missing, so a renamed block is noticed instead of silently skipped."""
import re
import sys

doc, name = sys.argv[1], sys.argv[2]
# stdin first: in `long_command | doc_block.py` the doc must be read only when the block is ready,
# or edits made to it meanwhile would be overwritten.
body = sys.stdin.read()
text = open(doc).read()
if body and not body.endswith("\n"):
    body += "\n"
pat = re.compile(r"(<!-- " + re.escape(name) + r":begin[^>]*-->\n)(.*?)(<!-- " + re.escape(name) + r":end -->)", re.S)
if not pat.search(text):
    sys.exit(f"doc_block.py: {doc} has no '<!-- {name}:begin ... -->' / '<!-- {name}:end -->' markers")
text = pat.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)
open(doc, "w").write(text)
