"""What fixbot makes of a `uses:` step: a tool it needs on PATH (`actions/setup-python` ->
`python`), nothing (a checkout, a cache, an upload), or a step it cannot reproduce.

Allowlists: an action not named here is one fixbot cannot reproduce, and the plan names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from fixbot.infer.expressions import Context, Unknowable, interpolate

# Actions whose effect the check does not need here: the work tree is already checked out,
# and caches, uploads and coverage reports change nothing a check reads.
HARMLESS = frozenset(
    {
        "actions/checkout",
        "actions/cache",
        "actions/cache/restore",
        "actions/cache/save",
        "actions/upload-artifact",
        "actions/github-script",
        "swatinem/rust-cache",
        "codecov/codecov-action",
        "coverallsapp/github-action",
        "actions/setup-dotnet",  # not one of the four ecosystems: nothing of the check's
        "step-security/harden-runner",
        "styfle/cancel-workflow-action",
        "re-actors/alls-green",
    }
)


def _version(key: str, label: str) -> Callable[[Mapping[str, str], str], str]:
    def wanted(with_: Mapping[str, str], ref: str) -> str:
        version = with_.get(key) or with_.get(f"{key}-file", "")
        return f"{label} {version}".strip()

    return wanted


def _rust(with_: Mapping[str, str], ref: str) -> str:
    toolchain = with_.get("toolchain") or (ref if ref and not _is_sha(ref) else "")
    return f"Rust {toolchain}".strip()


def _is_sha(ref: str) -> bool:
    return len(ref) == 40 and all(c in "0123456789abcdef" for c in ref.lower())


def _plain(label: str) -> Callable[[Mapping[str, str], str], str]:
    return lambda with_, ref: label


# action (lower case, no @ref) -> (program on PATH, what to say is wanted)
TOOLS: dict[str, tuple[str, Callable[[Mapping[str, str], str], str]]] = {
    "actions/setup-python": ("python", _version("python-version", "Python")),
    "actions/setup-node": ("node", _version("node-version", "Node.js")),
    "actions/setup-go": ("go", _version("go-version", "Go")),
    "dtolnay/rust-toolchain": ("cargo", _rust),
    "actions-rs/toolchain": ("cargo", _rust),
    "actions-rust-lang/setup-rust-toolchain": ("cargo", _rust),
    "astral-sh/setup-uv": ("uv", _plain("uv")),
    "hynek/setup-cached-uv": ("uv", _plain("uv")),
    "pnpm/action-setup": ("pnpm", _version("version", "pnpm")),
    "oven-sh/setup-bun": ("bun", _version("bun-version", "Bun")),
    "denoland/setup-deno": ("deno", _version("deno-version", "Deno")),
    "extractions/setup-just": ("just", _plain("just")),
    "wntrblm/nox": ("nox", _plain("nox")),
}


def split(uses: str) -> tuple[str, str]:
    """`actions/setup-python@v5` -> ("actions/setup-python", "v5"), the name lower-cased."""
    name, _, ref = uses.partition("@")
    return name.strip().lower(), ref.strip()


def tool_of(uses: str, with_: object, ctx: Context) -> tuple[str, str] | None:
    """(program, wanted) for a set-up action, None for any other. The `with:` values are
    interpolated where they can be; an unknowable one is left out of `wanted`."""
    name, ref = split(uses)
    if name == "taiki-e/install-action":
        tool = _inputs(with_, ctx).get("tool", "") or ref
        return (tool.split(",")[0].split("@")[0].strip(), tool) if tool else None
    if name not in TOOLS:
        return None
    program, wanted = TOOLS[name]
    return program, wanted(_inputs(with_, ctx), ref)


def harmless(uses: str) -> bool:
    """True for an action whose effect the check does not need."""
    return split(uses)[0] in HARMLESS


def _inputs(with_: object, ctx: Context) -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(with_, Mapping):
        for key, value in with_.items():
            try:
                out[str(key)] = interpolate(str(value), ctx)
            except Unknowable:
                continue
    return out
