"""``docmunch refresh REPO``: re-check every document of a repo at its source.

URL and crawled repos: each page is re-fetched with a conditional request (its stored ETag /
Last-Modified), ``concurrency`` at a time; a 304 (or an identical body) costs no extraction,
a 404/410 removes the page, other failures are reported and keep the stored copy. Only stored
pages are re-checked, so such a refresh completes no interrupted crawl: the repo keeps its
"interrupted" mark (:mod:`docmunch.index.runlock`, ``completes=False``) and the report a
warning saying to index it again. A repo
whose pages were fetched from private/loopback addresses with ``--allow-private`` is refreshed
with that leave too (each such page's meta records ``allow_private``). GitHub
repos: one request for the SHA at the stored ref, a download only when it moved. Local
folders: an incremental re-walk.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import time
from pathlib import Path

from docmunch.errors import RepoNotFound
from docmunch.fetch import Fetcher
from docmunch.index import FileError, Index, IndexReport
from docmunch.index.runlock import index_command, still_incomplete
from docmunch.sources.page import Progress, load_page, make_fetcher, page_error
from docmunch.sources.tally import RunTally

__all__ = ["refresh_repo"]


def refresh_repo(
    index: Index,
    repo: str,
    *,
    allow_private: bool = False,
    progress: Progress | None = None,
    fetcher: Fetcher | None = None,
    concurrency: int = 4,
) -> IndexReport:
    """Re-check every document of ``repo`` at its source.

    URL repos: every page is re-fetched with a conditional request (its stored ETag /
    Last-Modified); a 304 or an identical body costs no extraction, a 404/410 removes the
    page, other failures are reported and keep the old copy. GitHub repos are re-indexed with
    the stored repository, ref and ``--path`` (one request when the SHA did not move); local
    folders are re-walked incrementally.

    Raises:
        RepoNotFound: no such repo.
    """
    repos = index.list_repos()
    info = next((r for r in repos if r.repo == repo), None)
    if info is None:
        raise RepoNotFound(repo, known=[r.repo for r in repos])
    if info.source.startswith("github:"):
        from docmunch.sources.github import index_github, stored_github

        stored = stored_github(index, repo)
        spec = (
            f"github:{stored['github_repo']}" if stored.get("github_repo") else info.source.rsplit("@", 1)[0]
        )
        return index_github(
            index,
            spec,
            ref=stored.get("github_ref"),
            repo=repo,
            path=stored.get("github_path"),
            progress=progress,
            allow_private=allow_private,
        )
    if not info.source.startswith(("http://", "https://")):
        return index.index_path(Path(info.source), repo=repo, progress=progress)
    # one writer per repo (docmunch.index.runlock); re-checking the stored pages completes no crawl
    with index.exclusive(repo, completes=False) as run:
        report = _refresh_pages(index, repo, info.source, allow_private, progress, fetcher, concurrency)
    if run.interrupted is None:
        return report
    # the whole command that completes this repo: its name, a crawl of a site, the private leave
    docs = index.list_docs(repo)
    crawl = ["--crawl"] if len(docs) > 1 else []
    private = allow_private or any(
        (state := index.document_state(repo, doc.doc_path)) is not None and state.meta.get("allow_private")
        for doc in docs
    )
    command = index_command(info.source, repo, *crawl, *(["--allow-private"] if private else []))
    why = "refresh re-checks only the stored pages"
    still = FileError(info.source, still_incomplete(run.interrupted, why, command))
    return dataclasses.replace(report, warnings=(*report.warnings, still))


def _refresh_pages(
    index: Index,
    repo: str,
    source: str,
    allow_private: bool,
    progress: Progress | None,
    fetcher: Fetcher | None,
    concurrency: int,
) -> IndexReport:
    started = time.perf_counter()
    tally = RunTally()
    docs = index.list_docs(repo)
    states = {doc.doc_path: index.document_state(repo, doc.doc_path) for doc in docs}
    # pages fetched from private addresses with leave to do so keep that leave (load_page records it)
    allow_private = allow_private or any(
        state is not None and state.meta.get("allow_private") for state in states.values()
    )
    own = fetcher is None
    fetcher = fetcher or make_fetcher(allow_private=allow_private)
    try:
        with cf.ThreadPoolExecutor(
            max_workers=max(1, concurrency), thread_name_prefix="docmunch-refresh"
        ) as pool:
            futures = {}
            for doc in docs:
                state = states[doc.doc_path]
                url = (state.meta.get("url") if state else None) or doc.source_ref or ""
                futures[pool.submit(load_page, fetcher, url, state=state, doc_path=doc.doc_path)] = url
            try:
                for future in cf.as_completed(futures):
                    url = futures[future]
                    tally.done += 1
                    try:
                        tally.count(index, repo, future.result(), source)
                    except Exception as exc:  # one bad page never ends the run (DocmunchError or not)
                        tally.errors.append(page_error(url, exc))
                    if progress is not None:
                        progress(tally.done, len(futures), url)
            except BaseException:  # stopped (RunCancelled, Ctrl-C): the queued pages are not fetched
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    finally:
        if own:
            fetcher.close()
    return tally.report(index, repo, started)
