"""Indexing a folder or a single file into a repo (incremental by file sha256).

For every file the walker accepts (:mod:`docmunch.index.walk`): read its bytes, hash them,
and when the sha256 equals the stored ``source_hash`` (and the raw cache file is present)
count it unchanged — it is neither rendered nor parsed. Otherwise render it
(:func:`docmunch.formats.render_file`), section it (:mod:`docmunch.index.prepare`, in worker
processes for large runs) and store it. Documents are committed in batches
(:data:`BATCH_DOCS`): their raw cache files are fsynced together, then one transaction
writes the batch, so a crash loses at most the uncommitted batch and never leaves a
half-written document. A file that cannot be read, rendered or sectioned becomes an
``errors`` entry and keeps its previous index entry. After a folder walk, documents whose
file disappeared (or is now excluded or skipped) are removed. Indexing a single file never
removes other documents. A file or sub-folder inside the folder a repo records as its source is
a part of that repo: its ``doc_path``s stay relative to the recorded folder (``sub/b.md``), the
folder stays the recorded source, and a sub-folder's run removes only vanished documents under
its own prefix (docs/decisions.md, "A single file"). A folder with no file of a known format is never a silent
"0 indexed": a new repo is refused (:class:`~docmunch.errors.NothingToIndex`), an existing one
is emptied with a note (``IndexReport.nothing_to_index``; docs/cli.md says why).

A run that can index nothing changes nothing: when every file of a known format was skipped
(too large, binary, …) it raises :class:`~docmunch.errors.AllSkipped` before any write, and a
run in which nothing was indexed or unchanged because files failed removes no document (the
previous index stays whole; the CLI exits 1 either way).
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docmunch.errors import (
    AllSkipped,
    DocmunchError,
    InvalidRepoName,
    NothingToIndex,
    RepoExists,
    SourceError,
)
from docmunch.formats import supported_suffixes
from docmunch.index.document import PreparedDoc
from docmunch.index.prepare import Prepared, prepare_files
from docmunch.index.records import FileError, IndexReport
from docmunch.index.runlock import RepoRun, WaitNotice, index_command, still_incomplete
from docmunch.index.store import Store
from docmunch.index.versions import check_new_name, with_version
from docmunch.index.walk import WalkFile, WalkResult, display_name, looks_binary, read_regular, walk

__all__ = ["DEFAULT_MAX_FILE_BYTES", "Progress", "index_path"]

DEFAULT_MAX_FILE_BYTES = 5 * 2**20
"""Files larger than this (5 MiB) are skipped unless ``max_file_bytes`` says otherwise."""

Progress = Callable[[int, int, str], None]
"""``progress(done, total, doc_path)``: called after each file. It may raise
:class:`~docmunch.errors.RunCancelled` to stop the run there (the MCP server does when the client
cancels the call): what was committed stays, and the run counts as interrupted."""


BATCH_DOCS = 256
"""Documents committed per transaction (each document's rows are still all-or-nothing); 64 made
four times the fsync rounds and postings segments (cold k8s-en: commit 2.7 → 2.0 s CPU)."""
BATCH_BYTES = 8 * 2**20
"""… or fewer, once their stored bytes pass 8 MiB."""


class _Batch:
    """Prepared documents waiting for one fsync round and one transaction."""

    def __init__(self, store: Store, repo: str, source: str, errors: list[FileError]) -> None:
        self.store, self.repo, self.source, self.errors = store, repo, source, errors
        self.docs: list[PreparedDoc] = []
        self.bytes = 0
        self.committed = 0

    def add(self, doc_path: str, result: Prepared) -> None:
        if isinstance(result, str):
            self.errors.append(FileError(doc_path, result))
            return
        self.docs.append(result)
        self.bytes += result.values[5]
        if len(self.docs) >= BATCH_DOCS or self.bytes >= BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self.docs:
            return
        failures = self.store.commit_documents(self.repo, self.source, self.docs)
        self.errors.extend(FileError(path, message) for path, message in failures)
        self.committed += len(self.docs) - len(failures)
        self.docs, self.bytes = [], 0


def _area(path: Path) -> Path:
    """The folder a recorded source stands for: itself, or a file's folder (files indexed one by
    one from one folder share its repo)."""
    is_file = path.is_file() or (not path.exists() and path.suffix.lower() in supported_suffixes())
    return path.parent if is_file else path


def _related(recorded: str, root: Path) -> bool:
    """Whether indexing ``root`` into a repo that records ``recorded`` needs no ``--replace``:
    both are local and one's folder holds the other's (:func:`_check_same_source`)."""
    if "://" in recorded or recorded.startswith("github:"):
        return False
    old, new = _area(Path(recorded)), _area(root)
    return new.is_relative_to(old) or old.is_relative_to(new)


def _check_same_source(store: Store, name: str, root: Path) -> None:
    """Raise :class:`RepoExists` when ``name`` was indexed from a source unrelated to ``root``."""
    row = store.conn.execute("SELECT source FROM repos WHERE name = ?", (name,)).fetchone()
    recorded = row[0] if row else None
    if not recorded or _related(recorded, root):
        return
    raise RepoExists(
        f"repo {name!r} holds {display_name(recorded)}, not {display_name(str(root))}: indexing it "
        f"would replace its documents (pass --replace to do that, or choose another name with --repo)",
        repo=name,
    )


def index_path(
    store: Store,
    path: Path,
    *,
    repo: str | None = None,
    incremental: bool = True,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    password: str | None = None,
    exclude: Sequence[str] = (),
    progress: Progress | None = None,
    workers: int | None = None,
    version: str | None = None,
    replace: bool = False,
    on_wait: WaitNotice | None = None,
) -> IndexReport:
    """Index a folder (recursively) or one file.

    Args:
        store: the open store.
        path: folder or file.
        repo: repo name; default = the folder's name (for a file: its parent folder's name).
            For a single file the repo's recorded source is that file, so ``refresh`` re-reads
            only it; a run that indexes nothing into a repo that did not exist before leaves
            no empty repo behind. A file or folder inside the folder the repo records is the
            exception: it updates that part of the repo (``doc_path`` relative to the recorded
            folder, removals limited to the sub-folder) and the recorded folder stays the source.
        incremental: skip files whose sha256 is unchanged (``False`` re-parses everything).
        max_file_bytes: size cap in bytes; larger files are skipped.
        password: for encrypted PDF files (encrypted DOCX files are refused whatever the password).
        exclude: extra ignore patterns (``.gitignore`` syntax) relative to the folder.
        progress: ``progress(done, total, doc_path)`` after each file.
        workers: parser processes (default: automatic, see :mod:`docmunch.index.prepare`).
        version: index as ``NAME@VERSION`` (:func:`docmunch.index.versions.with_version`).
        replace: allow indexing into an existing repo whose recorded source is another folder,
            file, URL or GitHub repo (its documents are then replaced). Without it that is a
            :class:`RepoExists` error: two folders that share a name (``a/docs``, ``b/docs``)
            must not silently replace each other. The same source, a file or folder inside it,
            a folder holding the recorded file and a file beside it are never a conflict.
        on_wait: told when the run waits for another run of the same repo, and when that
            wait ends (:data:`docmunch.index.runlock.WaitNotice`); the folder is walked
            before the wait, everything else (hashing against the index included) after it.

    Returns:
        The :class:`IndexReport` (``sections`` = total in the repo after the run).

    Raises:
        NothingToIndex: ``path`` is a folder with no file of a known format and the repo does
            not exist (none is created). For an existing repo the run removes its documents
            and says so in :attr:`IndexReport.nothing_to_index` instead.
        AllSkipped: every file of a known format (or the one file) was skipped by a safety rule
            and none failed, so nothing could be indexed; nothing is written (no repo is
            created, an existing one keeps every document).
        SourceError: ``path`` does not exist or is neither a folder nor a regular file.
        InvalidRepoName: the repo name or version breaks the rules of :mod:`docmunch.index.versions`.
        RepoExists: the repo holds another source and ``replace`` is false.
        IndexStoreError: the store cannot be written.
        LimitExceeded: another run held the repo longer than ``REPO_LOCK_WAIT_SECONDS``.
    """
    started = time.perf_counter()
    if repo is not None and not repo.strip():
        raise InvalidRepoName(f"invalid repo name {repo!r}: it must not be empty", repo=repo)
    path = path.expanduser()
    if display_name(str(path)) != str(path):
        raise SourceError(
            f"path is not valid UTF-8: {display_name(str(path))} (rename it, or index the folder above it)",
            path=display_name(str(path)),
        )
    if not path.exists():
        raise SourceError(f"no such file or folder: {path}", path=str(path))
    root = path.resolve()
    suffixes = supported_suffixes()
    if root.is_dir():
        name = with_version(repo or root.name or "root", version)
    elif root.is_file():
        name = with_version(repo or root.parent.name or "root", version)
        if root.suffix.lower() not in suffixes:
            raise SourceError(
                f"cannot index {path}: unsupported file type {root.suffix or '(none)'!r} "
                f"(supported: {' '.join(sorted(suffixes))})",
                path=str(path),
            )
    else:
        raise SourceError(f"not a regular file or folder: {path}", path=str(path))

    def gather(part: _Part | None) -> _Gathered:
        return _gather(root, part, suffixes=suffixes, max_file_bytes=max_file_bytes, exclude=exclude)

    gathered = gather(_part_of(_recorded_source(store, name), root))  # before any wait
    with RepoRun(store.home, name, on_wait=on_wait) as run:
        if run.swept:
            store.sweep_orphans()
        recorded = _recorded_source(store, name)
        part = _part_of(recorded, root)
        if part != gathered.part:  # the recorded source changed while this run waited
            gathered = gather(part)
        files, skipped, source = gathered.files, list(gathered.skipped), gathered.source
        files_seen, no_known_files = gathered.seen, gathered.no_known_files
        if part is not None:  # reads a part of the recorded folder: completes no interrupted run
            run.completes = False
        existed = recorded is not None
        if not existed:  # the repo row is created by the first commit, not before
            try:
                check_new_name(name)
            except InvalidRepoName as exc:
                if repo is not None:
                    raise
                raise InvalidRepoName(  # the user never typed this name: say where it came from
                    f"{exc}; it is the folder's name: give the repo one with --repo NAME (MCP: the repo "
                    "argument)",
                    repo=name,
                ) from None
            if no_known_files is not None:
                raise NothingToIndex(no_known_files, path=source, files_seen=files_seen)
        elif not replace:
            _check_same_source(store, name, root)
        known = store.source_hashes(name)
        errors: list[FileError] = []
        seen: set[str] = set()
        unchanged = 0
        todo: list[tuple[Path, str]] = []
        total = len(files)
        done = 0
        for item in files:
            seen.add(item.doc_path)
            try:
                data = read_regular(item.path, max_file_bytes)
            except DocmunchError as exc:
                errors.append(FileError(item.doc_path, str(exc)))
            else:
                if looks_binary(data, item.path.suffix):
                    seen.discard(item.doc_path)
                    skipped.append((item.doc_path, "binary content (NUL byte)"))
                else:
                    digest = hashlib.sha256(data).hexdigest()
                    stored = known.get(item.doc_path)
                    if not (
                        incremental
                        and stored is not None
                        and stored[0] == digest
                        and store.raw.path_for(stored[1]).is_file()
                    ):
                        todo.append((item.path, item.doc_path))
                        continue
                    unchanged += 1
            done += 1
            if progress is not None:
                progress(done, total, item.doc_path)
        if skipped and not (todo or unchanged or errors) and no_known_files is None:
            raise _all_skipped(root, skipped, repo=name if existed else None, files_seen=files_seen)

        # Changed files are read again by the parser (in worker processes for large runs); the
        # stored source_hash is the sha256 of the bytes actually parsed.
        batch = _Batch(store, name, source, errors)
        prepared = prepare_files(
            store.raw.root, name, todo, password=password, workers=workers, max_file_bytes=max_file_bytes
        )
        with contextlib.closing(prepared):  # a stopped run (RunCancelled) stops the parsers now
            for doc_path, result in prepared:
                batch.add(doc_path, result)
                done += 1
                if progress is not None:
                    progress(done, total, doc_path)
        batch.flush()
        indexed = batch.committed

        removed = 0
        failed = not (indexed or unchanged) and bool(errors)  # the previous index stays whole
        if root.is_dir() and not failed:  # one transaction for all of them (rows.delete_docs)
            gone = set(known) - seen
            if part is not None:  # a folder inside the recorded one: only its own documents
                gone = {doc_path for doc_path in gone if doc_path.startswith(part.path + "/")}
            removed = len(store.remove_documents(name, sorted(gone)))
        if existed and (indexed or unchanged or removed):
            store.ensure_repo(name, source=source)  # a run that read nothing keeps the old source
        if not existed and indexed == 0 and unchanged == 0 and _repo_exists(store, name):
            store.delete_repo(name)  # nothing usable: do not leave an empty repo behind
        elif run.interrupted is not None and _repo_exists(store, name) and not store.source_hashes(name):
            store.delete_repo(name)  # an empty repo left by a killed run
        elif indexed or removed:
            store.compact_terms(name)  # one postings segment per term again
        sections = int(
            store.conn.execute(
                "SELECT count(*) FROM sections s JOIN docs d ON d.id = s.doc_id "
                "JOIN repos r ON r.id = d.repo_id WHERE r.name = ?",
                (name,),
            ).fetchone()[0]
        )
        if no_known_files is not None:
            under = f" under {part.path}/" if part is not None else ""
            plural = "" if removed == 1 else "s"
            emptied = f"removed its {removed} document{plural}{under}; " if removed else ""
            if part is not None:  # only that folder's documents went
                no_known_files = f"{no_known_files}; {emptied}repo {name!r} keeps its other documents"
            else:
                no_known_files = (
                    f"{no_known_files}; {emptied}repo {name!r} is kept with no document "
                    f"(delete it with docmunch delete {name}; MCP: delete_index)"
                )
        now = _recorded_source(store, name)
        changed = None
        if recorded and now is not None and now != recorded:  # refresh now re-reads another source
            changed = _source_changed(name, recorded, now)
        completed = run.interrupted
        warnings: tuple[FileError, ...] = ()
        if part is not None and run.interrupted is not None:  # the mark stays (run.completes)
            completed = None
            why = f"this run read only {display_name(part.path)} of {display_name(str(part.folder))}"
            command = index_command(display_name(str(part.folder)), name)
            warnings = (FileError(str(part.folder), still_incomplete(run.interrupted, why, command)),)
        return IndexReport(
            repo=name,
            docs_indexed=indexed,
            docs_unchanged=unchanged,
            docs_removed=removed,
            docs_skipped=len(skipped),
            sections=sections,
            errors=tuple(errors),
            elapsed_ms=round((time.perf_counter() - started) * 1000),
            skipped_paths=tuple(p for p, _ in skipped),
            skipped_reasons=tuple(reason for _, reason in skipped),
            warnings=warnings,
            interrupted_run=completed,
            nothing_to_index=no_known_files,
            source_changed=changed,
        )


@dataclass(frozen=True, slots=True)
class _Part:
    """A file or folder inside the folder a repo records as its source."""

    folder: Path
    """The recorded folder (resolved)."""
    path: str
    """The file's or folder's POSIX path relative to :attr:`folder` (its ``doc_path`` for a file)."""


def _part_of(recorded: str | None, root: Path) -> _Part | None:
    """``root`` as a part of the repo's recorded folder, or ``None`` when the recorded source is
    no folder holding it (a file, a URL, another folder, the folder itself, no repo)."""
    if not recorded or "://" in recorded or recorded.startswith("github:"):
        return None
    folder = Path(recorded)
    if root == folder or not root.is_relative_to(folder) or not folder.is_dir():
        return None
    return _Part(folder, root.relative_to(folder).as_posix())


@dataclass(frozen=True, slots=True)
class _Gathered:
    """What a run reads, decided before it takes the repo."""

    part: _Part | None
    """Set when the run updates part of the recorded folder (see :func:`index_path`)."""
    files: list[WalkFile]
    """The files to read, ``doc_path`` relative to the recorded folder for a part."""
    skipped: tuple[tuple[str, str], ...]
    """``(doc_path, reason)`` of the files refused by a safety rule."""
    source: str
    """The source the run records: the path given, or the recorded folder for a part."""
    seen: int
    """Files looked at."""
    no_known_files: str | None
    """Why a folder holds no file of a known format, ``None`` when it holds one."""


def _gather(
    root: Path, part: _Part | None, *, suffixes: frozenset[str], max_file_bytes: int, exclude: Sequence[str]
) -> _Gathered:
    """The files of the folder or file ``root`` (resolved); for a ``part`` of the recorded folder
    their ``doc_path`` is relative to that folder (a sub-folder is walked with the ``.gitignore``
    files above it)."""
    source = str(part.folder) if part is not None else str(root)
    if root.is_file():
        doc_path = part.path if part is not None else root.name
        size = root.stat().st_size
        if size > max_file_bytes:
            return _Gathered(part, [], ((doc_path, f"larger than {max_file_bytes} bytes"),), source, 1, None)
        return _Gathered(part, [WalkFile(root, doc_path, size)], (), source, 1, None)
    if part is not None:
        walked = walk(
            part.folder, suffixes=suffixes, max_file_bytes=max_file_bytes, exclude=exclude, under=part.path
        )
    else:
        walked = walk(root, suffixes=suffixes, max_file_bytes=max_file_bytes, exclude=exclude)
    none = _no_known_files(root, walked, suffixes) if walked.candidates == 0 else None
    return _Gathered(part, list(walked.files), walked.skipped, source, walked.seen, none)


def _recorded_source(store: Store, name: str) -> str | None:
    """The source recorded for repo ``name`` (``""`` when none), ``None`` when there is no such repo."""
    row = store.conn.execute("SELECT source FROM repos WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0] or "")


def _source_changed(name: str, previous: str, source: str) -> dict[str, str]:
    """:attr:`IndexReport.source_changed` for a run that recorded ``source`` in place of ``previous``.

    The way back is a whole command that works: with ``--replace`` when going back needs it
    (:func:`_related`), and none at all when the folder ``source`` holds ``previous`` (a part of
    the recorded folder is never its source again: docs/decisions.md, "A single file")."""

    def kind(path: str) -> str:
        if "://" in path or path.startswith("github:"):
            return ""
        return "the folder " if _area(Path(path)) == Path(path) else "the file "

    now, before = kind(source), kind(previous)
    reads = "only that file" if now == "the file " else "that folder" if now else "that source"
    message = (
        f"repo {name!r} now records {now}{display_name(source)} as its source instead of {before}"
        f"{display_name(previous)}, so `docmunch refresh {name}` re-reads {reads}"
    )
    inside = bool(before) and now == "the folder " and Path(previous).is_relative_to(source)
    if before != "the file " and not inside:  # how to go back to the wider source
        replace = [] if before and _related(source, Path(previous)) else ["--replace"]
        again = index_command(display_name(previous), name, *replace)
        message += f"; to refresh {display_name(previous)} again, run `{again}`"
    return {"previous": previous, "source": source, "message": message}


_NAMED_TYPES = 5
"""Other suffixes named in a "no file of a known format" message at most (then ``…``)."""


def _no_known_files(root: Path, walked: WalkResult, suffixes: frozenset[str]) -> str:
    """One line saying that the folder ``root`` holds no file of a known format: the suffixes
    that count, and how many files the walk looked at, had another type or were hidden/ignored.

    E.g. ``nothing to index in /tmp/shots: no file of a known format (.docx .htm … .txt);
    looked at 3 files, 3 skipped by type (.png 2, .jpg 1)``.
    """
    other = sum(count for _suffix, count in walked.other_types)
    looked = f"looked at {walked.seen} file{'' if walked.seen == 1 else 's'}"
    if other:
        shown = walked.other_types[:_NAMED_TYPES]
        named = ", ".join(f"{suffix or 'no suffix'} {count}" for suffix, count in shown)
        more = ", …" if len(walked.other_types) > _NAMED_TYPES else ""
        looked += f", {other} skipped by type ({named}{more})"
    hidden = walked.seen - other - walked.candidates
    if hidden:
        looked += f", {hidden} hidden or ignored"  # dot-files, .gitignore, --exclude, secret names
    return (
        f"nothing to index in {display_name(str(root))}: no file of a known format "
        f"({' '.join(sorted(suffixes))}); {looked}"
    )


def _all_skipped(
    root: Path, skipped: list[tuple[str, str]], *, repo: str | None, files_seen: int
) -> AllSkipped:
    """The error of a run whose every file of a known format was skipped: one line with how many
    files were skipped for which reason, the option that lifts a size skip, and what became of
    the repo (``repo``: its name when it exists, ``None`` when it was not created).

    E.g. ``nothing to index in /tmp/docs: every file of a known format was skipped (3 files:
    larger than 100 bytes 2, binary content (NUL byte) 1); --max-file-bytes N raises the size
    limit; repo 'docs' is unchanged``.
    """
    counts = Counter(reason for _path, reason in skipped)
    ranked = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    reasons = ", ".join(f"{reason} {n}" for reason, n in ranked)
    if root.is_dir():
        files = f"{len(skipped)} file{'' if len(skipped) == 1 else 's'}"
        what = f"every file of a known format was skipped ({files}: {reasons})"
    else:
        what = f"the file was skipped ({skipped[0][1]})"
    if any(reason.startswith("larger than ") for reason in counts):
        what += "; --max-file-bytes N raises the size limit"
    outcome = f"repo {repo!r} is unchanged" if repo is not None else "no repo was created"
    return AllSkipped(
        f"nothing to index in {display_name(str(root))}: {what}; {outcome}",
        path=str(root),
        files_seen=files_seen,
        skipped=ranked,
    )


def _repo_exists(store: Store, name: str) -> bool:
    return store.conn.execute("SELECT 1 FROM repos WHERE name = ?", (name,)).fetchone() is not None
