"""fixbot's own errors, each with the process exit code it ends a run with.

One place for every error class that crosses a module boundary: the CLI and the Action map an
exception to an outcome and an exit code by reading `exit_code` here, never by a second table.
Exit codes: 2 for configuration, usage, set-up, git and GitHub problems (the `error` outcome),
143 for a run cancelled by SIGTERM (128 + 15, as a shell reports it), 130 for Ctrl-C (128 + 2).
"""

from __future__ import annotations

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_CANCELLED = 143  # 128 + SIGTERM


class FixbotError(Exception):
    """Base of fixbot's errors; `exit_code` is what the process exits with."""

    exit_code = EXIT_ERROR


class ConfigError(FixbotError):
    """Bad configuration or usage; `problems` lists every problem found, each with its fix."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class SetupError(FixbotError):
    """The project's set-up command failed: no model is called and nothing is pushed."""


class GitHubError(FixbotError, RuntimeError):
    """A GitHub API call failed for good; the message says what to change."""


class GitError(FixbotError, RuntimeError):
    """A git command failed; the message holds the command and git's stderr."""


class Cancelled(FixbotError):
    """The run was stopped by SIGTERM (a cancelled workflow); its state was saved."""

    exit_code = EXIT_CANCELLED


class Interrupted(FixbotError):
    """The run was stopped by Ctrl-C (SIGINT); its state was saved."""

    exit_code = EXIT_INTERRUPTED
