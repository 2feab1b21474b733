"""Resource limits on outside data: named, with units, and raisable by the user.

Every path that handles bytes docmunch did not write (files, archives, fetched pages) is
bounded where the data enters. Each bound is a :class:`Limit` constant defined in the module
that enforces it (``docmunch/section/frontmatter.py``, ``docmunch/formats/docx_package.py``,
…), documented in ``docs/decisions.md`` ("Limits"), and raised by setting the environment
variable ``DOCMUNCH_<NAME>`` to a positive integer in the limit's unit::

    DOCMUNCH_FRONT_MATTER_MAX_BYTES=262144 docmunch index ./docs

The variable is read each time the limit is checked (no restart of ``docmunch serve`` needed
for a new process; an already running server reads its own environment). An input over a
limit raises :class:`~docmunch.errors.LimitExceeded`, whose one-line message names the limit
and the variable; the run records it as that one file's (or page's) error and goes on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from docmunch.errors import ConfigError, LimitExceeded

__all__ = ["ENV_PREFIX", "Limit"]

ENV_PREFIX = "DOCMUNCH_"
"""Prefix of every limit's environment variable (``DOCMUNCH_`` + :attr:`Limit.name`)."""


@dataclass(frozen=True, slots=True)
class Limit:
    """One resource limit: a default value in ``unit``, overridable by an environment variable."""

    name: str
    """Constant name, e.g. ``"FRONT_MATTER_MAX_BYTES"``; the variable is ``DOCMUNCH_`` + name."""
    default: int
    """Value used when the variable is unset (in ``unit``)."""
    unit: str
    """What the value counts: ``"bytes"``, ``"nodes"``, ``"elements"``, ``"seconds"`` …"""

    @property
    def env(self) -> str:
        """The environment variable that overrides the default."""
        return ENV_PREFIX + self.name

    def value(self) -> int:
        """The limit now in force: the environment override, else :attr:`default`.

        Raises:
            ConfigError: the variable is set but is not a positive integer.
        """
        raw = os.environ.get(self.env)
        if raw is None or not raw.strip():
            return self.default
        try:
            value = int(raw.strip().replace("_", ""))
        except ValueError:
            value = 0
        if value < 1:
            raise ConfigError(f"{self.env}={raw!r} is not a positive integer ({self.unit})", name=self.env)
        return value

    def exceeded(self, what: str, *, path: str | None = None) -> LimitExceeded:
        """The error for an input over this limit: ``"{what} (over N unit; set ENV to raise the limit)"``.

        Args:
            what: what was found, e.g. ``"front matter is 70000 bytes"`` or ``"front matter
                nests too deep"`` (the limit's value is added, so ``what`` need not repeat it).
            path: the file or URL concerned, when known.
        """
        value = self.value()
        return LimitExceeded(
            f"{what} (over {value} {self.unit}; set {self.env} to raise the limit)",
            limit=self.name,
            value=value,
            env=self.env,
            path=path,
        )
