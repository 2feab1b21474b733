#!/usr/bin/env bash
# `make demo`: index a documentation folder, search it, print one verified section.
#
#   DOCS=path        folder to index (default: docs, this project's own documentation)
#   DEMO_QUERY=text  query to run (default: one that fits docs/; for another folder, the title
#                    of its first heading)
#   DEMO_HOME        index location (default: .docmunch-demo/ in the repo, git-ignored)
#
# The demo never uses DOCMUNCH_HOME, even when it is set: that is where a user keeps a real
# index, and the demo must not add to it (or fail on a repo of the same name there). It says
# so when DOCMUNCH_HOME is set, and it ends with where its own index is and how to remove it.
#
# A second run is quick: unchanged files are recognised by their sha256 and not parsed again.
set -euo pipefail
cd "$(dirname "$0")/.."

DOCS="${DOCS:-docs}"
DEMO_QUERY="${DEMO_QUERY:-}"
DEMO_HOME="${DEMO_HOME:-$PWD/.docmunch-demo}"
if [ -n "${DOCMUNCH_HOME:-}" ] && [ "$DOCMUNCH_HOME" != "$DEMO_HOME" ]; then
    echo "demo: your DOCMUNCH_HOME ($DOCMUNCH_HOME) is not used; the demo keeps its own index in $DEMO_HOME (DEMO_HOME=path picks another)"
fi
export DOCMUNCH_HOME="$DEMO_HOME"
DM=.venv/bin/docmunch
PY=.venv/bin/python

if [ ! -d "$DOCS" ]; then
    echo "demo: DOCS=$DOCS is not a folder" >&2
    exit 1
fi
repo="$(basename "$(cd "$DOCS" && pwd)")"

echo "== docmunch index $DOCS  (DOCMUNCH_HOME=$DOCMUNCH_HOME)"
"$DM" index "$DOCS" --repo "$repo"

if [ -z "$DEMO_QUERY" ]; then
    if [ "$DOCS" = "docs" ]; then
        DEMO_QUERY="verify section hash"
    else
        # A heading of the folder's front page (index.md, _index.md, README.md), else of its
        # first document that is not an attribution/licence file.
        DEMO_QUERY="$("$DM" toc "$repo" --json | "$PY" -c '
import json, sys
sections = [s for s in json.load(sys.stdin)["sections"] if s["level"] >= 1]
skip = ("notice", "license", "licence", "copying", "changelog", "copyright")
front = ("index.md", "_index.md", "readme.md")
def name(s): return s["doc_path"].rsplit("/", 1)[-1].lower()
usable = [s for s in sections if not name(s).startswith(skip)]
first = [s for s in usable if "/" not in s["doc_path"] and name(s) in front] or usable
print(first[0]["title"] if first else "documentation")
')"
    fi
fi

echo
echo "== docmunch search $repo \"$DEMO_QUERY\""
"$DM" search "$repo" "$DEMO_QUERY" --limit 5

top="$("$DM" search "$repo" "$DEMO_QUERY" --limit 1 --json | "$PY" -c '
import json, sys
results = json.load(sys.stdin)["results"]
print(results[0]["id"] if results else "")
')"
if [ -z "$top" ]; then
    echo "demo: no results for \"$DEMO_QUERY\"" >&2
    exit 1
fi

echo
echo "== docmunch section $repo \"$top\" --verify"
"$DM" section "$repo" "$top" --verify

echo
echo "== the demo's own index is in $DOCMUNCH_HOME; remove it with: rm -rf $(printf '%q' "$DOCMUNCH_HOME")"
