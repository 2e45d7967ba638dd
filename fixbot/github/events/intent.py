"""From event to intent: one pure decision of what a workflow run is for.

Each event becomes one `Intent`:
- FIX: fix the check (pull_request, push, workflow_run, workflow_dispatch, schedule); on a
  same-repository pull request the in-scope review threads follow a green check;
- THREADS: a reviewer asked (pull_request_review submitted as `changes_requested` or
  `commented`, pull_request_review_comment created): check first; green, address the threads
  alone; red, fix the check, then the threads;
- COMMAND: a `/fixbot` comment on a pull request (issue_comment created);
- REFUSE: a gate said no, with the reason. `quiet` refusals (a comment that is no command, an
  edited comment, a bot) write nothing anywhere but the job summary; `reply` refusals (a
  command from someone without permission) answer on the pull request.

`decide` looks at the event alone, through the event's kind in the registry
(`fixbot.github.events.kinds`); when the intent needs the actor's permission it names the
login in `ask_permission`, and `authorize` finishes the decision once it is known.
"""

from __future__ import annotations

from collections.abc import Collection

from fixbot.github.events.data import Event
from fixbot.github.events.decision import Intent, IntentKind, Options, refuse
from fixbot.github.events.kinds import registry
from fixbot.github.events.permission import Level, allows

__all__ = ["Intent", "IntentKind", "authorize", "decide", "refuse"]


def decide(event: Event, allow_forks: bool, bots: Collection[str] = ()) -> Intent:
    """The intent of `event` from the event alone (`bots`: the `thread-bots` logins)."""
    kind = registry.find(event.name)
    if kind is None:
        return refuse(
            f"fixbot does not handle `{event.name}` events; trigger it on "
            f"{', '.join(registry.names())}"
        )
    return kind.intent(event, Options(allow_forks=allow_forks, bots=tuple(bots)))


def authorize(intent: Intent, login: str, level: Level, minimum: Level) -> Intent:
    """`intent` once `login`'s permission `level` is known: refused below `minimum`.

    Commands get a polite reply; a reviewer without permission is refused without one.
    """
    if allows(level, minimum):
        return intent.model_copy(update={"ask_permission": None})
    what = "command" if intent.kind is IntentKind.COMMAND else "review"
    return refuse(
        f"@{login} has {level.value} access; a {what} needs {minimum.value} or more",
        reply=intent.kind is IntentKind.COMMAND,
    ).model_copy(update={"command": intent.command})
