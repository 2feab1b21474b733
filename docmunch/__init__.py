"""docmunch: documentation → byte-exact section index → search and verified retrieval.

The pipeline, one package per stage: ``fetch`` → ``detect`` → ``extract`` → ``convert`` →
``section`` → ``index`` → ``serve`` (MCP) and ``cli``; ``formats`` renders DOCX/PDF.
"""

from importlib.metadata import PackageNotFoundError, version

from docmunch import compiled

compiled.guard()  # before any compiled module can be imported: stale extensions are bypassed

try:
    __version__ = version("docmunch")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = ["__version__"]
