"""Invariants every split document must satisfy (shared by fixture, property and corpus tests)."""

from __future__ import annotations

import hashlib

from docmunch.section import ParsedDocument


def check_invariants(doc: ParsedDocument, data: bytes) -> None:
    """Assert tiling, hashes, UTF-8 ranges, unique ids and consistent parents/subtrees."""
    sections = doc.sections
    ids = [s.id for s in sections]
    assert len(ids) == len(set(ids)), f"duplicate ids: {sorted(i for i in ids if ids.count(i) > 1)}"
    # own ranges tile [body_start, len(data)) exactly
    pos = doc.body_start
    for s in sections:
        assert s.byte_start == pos, f"gap or overlap before {s.id}: {pos} != {s.byte_start}"
        assert s.byte_end > s.byte_start, f"empty section {s.id}"
        pos = s.byte_end
    assert pos == len(data), f"sections end at {pos}, document at {len(data)}"
    by_id = {s.id: s for s in sections}
    for i, s in enumerate(sections):
        chunk = data[s.byte_start : s.byte_end]
        chunk.decode("utf-8")  # raises if a range splits a character
        assert hashlib.sha256(chunk).hexdigest() == s.content_hash
        assert s.token_estimate == (s.byte_end - s.byte_start) // 4
        assert len(s.summary) <= 200
        assert s.subtree_end >= s.byte_end
        assert s.id.endswith(f"#{s.level}")
        if s.level == 0:
            assert i == 0 and s.parent_id is None and s.subtree_end == s.byte_end
            continue
        # the subtree is exactly the following sections of a higher level
        j = i + 1
        while j < len(sections) and sections[j].level > s.level:
            j += 1
        expected_end = sections[j].byte_start if j < len(sections) else len(data)
        assert s.subtree_end == expected_end, f"subtree_end of {s.id}"
        if s.parent_id is not None:
            parent = by_id[s.parent_id]
            assert parent.level < s.level and parent.byte_start < s.byte_start
            assert parent.subtree_end >= s.subtree_end
        # no heading of a lower level between the parent and this one
        for previous in reversed(sections[:i]):
            if 0 < previous.level < s.level:
                assert s.parent_id == previous.id, f"parent of {s.id}"
                break
        else:
            assert s.parent_id is None, f"{s.id} has no lower-level heading before it"
