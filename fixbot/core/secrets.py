"""The one list of secrets: variable names, value rules and secret file names.

Who uses it:
- the check and fix commands get `check_environment(env)` (the repository's code runs there);
- `fixbot.security.redact` masks `secret_values(env)` in everything sent to a model or written down;
- the Action asks the runner to hide `secret_values(env)` (`::add-mask::`);
- the model's tools refuse `is_secret_file` paths (`fixbot.agent.paths`).

Model providers and their keys live here, the one table: litellm keeps none (an `if` chain in
`litellm.utils.validate_environment` and `get_secret("X")` calls across `litellm/llms/**`,
https://docs.litellm.ai/docs/set_keys), so what fixbot needs of it is copied once, and the tests
re-read the installed litellm so a new one cannot drift from it unseen:
- `PROVIDER_KEYS`: every credential variable litellm reads (scrubbed and redacted);
- `KEY_VARIABLES`: the variable to set for a provider's key, named in fixbot's messages and
  looked up by the preflight (`tests/run/test_preflight.py` asks `validate_environment`);
- fixbot's own additions: `UNCHECKED_PROVIDERS` (credentials that may come from elsewhere than
  a variable, instance roles, gcloud, Azure AD, or none, local servers: the preflight asks for no
  key) and `DEFAULT_BASES` (the API base named in "could not reach" messages when litellm gives
  none).
Importing this module does not import litellm (which takes seconds).

The scrubbing rule (what the check never sees):
- model-provider keys: every variable litellm reads a provider's credential from
  (`PROVIDER_KEYS`, taken from litellm 1.106's `validate_environment` and its providers'
  `get_secret` calls; `tests/core/test_secrets.py` re-reads the installed litellm and fails when a
  new one is not covered), and `<PROVIDER>_TOKEN`, `<PROVIDER>_API_KEY`, ... for those
  providers (`DATABRICKS_TOKEN`, `HF_TOKEN`). Bedrock's `AWS_ACCESS_KEY_ID` /
  `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` and Azure's client secret are among them;
- GitHub's and the Action's: `GITHUB_TOKEN`, `GH_TOKEN`, `ACTIONS_RUNTIME_TOKEN`,
  `ACTIONS_ID_TOKEN_REQUEST_*`, every `INPUT_*` (the Action's inputs, the token among them)
  and every `FIXBOT_*` (fixbot's own settings).
Every other variable passes: the user decides what the step gets (`env:`), and the set-up
command may need a private registry's credential (`PIP_INDEX_URL`, `NPM_TOKEN`,
`UV_INDEX_*_PASSWORD`). Their values are still redacted wherever fixbot writes or sends text
when the name looks secret (`SECRET_NAME`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fnmatch import fnmatchcase
from functools import cache
from urllib.parse import unquote

DEFAULT_STATE_DIR = ".fixbot"
MIN_SECRET_LENGTH = 8
GITHUB_NAMES = frozenset(
    {
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GH_ENTERPRISE_TOKEN",
        "GITHUB_ENTERPRISE_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
    }
)
SCRUBBED_PREFIXES = ("INPUT_", "FIXBOT_", "ACTIONS_RUNTIME_", "ACTIONS_ID_TOKEN_")
# Read from litellm 1.106 (litellm/utils.py `validate_environment`, litellm/main.py and
# litellm/llms/**: `get_secret("X")`, `get_secret_str("X")`, `os.environ.get("X")`).
_PROVIDER_KEY_TEXT = """
    AI21_API_KEY AIMLAPI_KEY AIML_API_KEY ALEPHALPHA_API_KEY ALEPH_ALPHA_API_KEY
    AMAZON_NOVA_API_KEY ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ANTHROPIC_AWS_API_KEY ARK_API_KEY
    AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_BEARER_TOKEN_BEDROCK
    AZURE_AD_TOKEN AZURE_AI_API_KEY AZURE_API_KEY AZURE_CLIENT_SECRET AZURE_OPENAI_API_KEY
    AZURE_PASSWORD AZURE_SPEECH_API_KEY BASETEN_API_KEY BEDROCK_MANTLE_API_KEY BFL_API_KEY
    BLACK_FOREST_LABS_API_KEY BYTEZ_API_KEY CEREBRAS_API_KEY CLARIFAI_API_KEY CLOUDFLARE_API_KEY
    CODESTRAL_API_KEY COHERE_API_KEY COMETAPI_API_KEY COMETAPI_KEY COMPACTIFAI_API_KEY CO_API_KEY
    DASHSCOPE_API_KEY DATABRICKS_API_KEY DATABRICKS_CLIENT_SECRET DATABRICKS_TOKEN
    DATAROBOT_API_TOKEN DEEPGRAM_API_KEY DEEPINFRA_API_KEY DEEPSEEK_API_KEY
    DOCKER_MODEL_RUNNER_API_KEY EDENAI_API_KEY ELEVENLABS_API_KEY FAL_AI_API_KEY
    FEATHERLESS_AI_API_KEY FEATHERLESS_API_KEY FIREWORKSAI_API_KEY FIREWORKS_AI_API_KEY
    FIREWORKS_AI_TOKEN FIREWORKS_API_KEY GDC_API_KEY GEMINI_API_KEY GIGACHAT_ACCESS_TOKEN
    GIGACHAT_API_KEY GIGACHAT_CREDENTIALS GOOGLE_API_KEY GOOGLE_APPLICATION_CREDENTIALS
    GRADIENT_AI_API_KEY GROQ_API_KEY HEROKU_API_KEY HF_TOKEN HOSTED_VLLM_API_KEY
    HUGGINGFACE_API_KEY HYPERBOLIC_API_KEY INCEPTION_API_KEY INFINITY_API_KEY JINA_AI_API_KEY
    JINA_AI_TOKEN JINA_API_KEY LAMBDA_API_KEY LEMONADE_API_KEY LITELLM_API_KEY
    LITELLM_MASTER_KEY LITELLM_PROXY_API_KEY LLAMAFILE_API_KEY LM_STUDIO_API_KEY MARITALK_API_KEY
    META_API_KEY MINIMAX_API_KEY MISTRAL_API_KEY MISTRAL_AZURE_API_KEY MODELSCOPE_API_KEY
    MOONSHOT_API_KEY MORPH_API_KEY NADIR_API_KEY NEBIUS_API_KEY NLP_CLOUD_API_KEY NOVITA_API_KEY
    NSCALE_API_KEY NVIDIA_NIM_API_KEY OLLAMA_API_KEY OPENAI_API_KEY OPENAI_LIKE_API_KEY
    OPENROUTER_API_KEY OR_API_KEY OVHCLOUD_API_KEY PALM_API_KEY PERPLEXITYAI_API_KEY
    PERPLEXITY_API_KEY PREDIBASE_API_KEY QWENCLOUD_API_KEY QWEN_AI_PLATFORM_API_KEY
    RECRAFT_API_KEY REPLICATE_API_KEY REPLICATE_API_TOKEN RUNWAYML_API_KEY RUNWAYML_API_SECRET
    SAMBANOVA_API_KEY SCW_SECRET_KEY SNOWFLAKE_JWT SONIOX_API_KEY STABILITY_API_KEY
    TENCENT_API_KEY TOGETHERAI_API_KEY TOGETHER_AI_API_KEY TOPAZ_API_KEY V0_API_KEY
    VERCEL_AI_GATEWAY_API_KEY VERCEL_OIDC_TOKEN VERTEXAI_CREDENTIALS VERTEX_CREDENTIALS
    VOLCENGINE_API_KEY VOYAGE_AI_API_KEY VOYAGE_AI_TOKEN VOYAGE_API_KEY WANDB_API_KEY
    WATSONX_APIKEY WATSONX_API_KEY WATSONX_TOKEN WATSONX_ZENAPIKEY WX_API_KEY XAI_API_KEY
    XINFERENCE_API_KEY ZAI_API_KEY ANYSCALE_API_KEY DATAFORSEO_PASSWORD E2B_API_KEY LANGFLOW_API_KEY
    LANGGRAPH_API_KEY MANUS_API_KEY MILVUS_API_KEY MONGODB_SIDECAR_API_KEY PG_VECTOR_API_KEY
    RAGFLOW_API_KEY YOUCOM_API_KEY
"""
PROVIDER_KEYS = frozenset(_PROVIDER_KEY_TEXT.split())
KEY_SUFFIX = re.compile(
    r"_(?:API_?KEY|ZENAPIKEY|KEY|API_TOKEN|ACCESS_TOKEN|AUTH_TOKEN|TOKEN|API_SECRET|SECRET_KEY"
    r"|CLIENT_SECRET|SECRET|PASSWORD|CREDENTIALS|JWT)\Z"
)
# The variable each provider prefix reads its key from (https://docs.litellm.ai/docs/providers;
# litellm/utils.py `validate_environment`).
KEY_VARIABLES = {
    "openai": "OPENAI_API_KEY",
    "text-completion-openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "vertex_ai": "GOOGLE_APPLICATION_CREDENTIALS",
    "azure": "AZURE_API_KEY",
    "bedrock": "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
}
UNCHECKED_PROVIDERS = frozenset(
    {"bedrock", "sagemaker", "vertex_ai", "azure", "ollama", "ollama_chat"}
)
DEFAULT_BASES = {
    "openai": "https://api.openai.com",
    "anthropic": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com",
}


def provider_of(model: str) -> str:
    """The provider prefix of a litellm `model` string (`anthropic` of
    `anthropic/claude-sonnet-4-5`); a bare model name is OpenAI's, as litellm reads it."""
    return model.split("/", 1)[0] if "/" in model else "openai"


def key_variable(model: str) -> str:
    """The environment variable holding the key for the provider of the litellm `model`
    string (`<PROVIDER>_API_KEY` for a provider not in `KEY_VARIABLES`)."""
    provider = provider_of(model)
    return KEY_VARIABLES.get(provider, f"{provider.upper()}_API_KEY")


# Values of variables named like this are redacted (never scrubbed for that alone).
SECRET_NAME = re.compile(
    r"TOKEN|SECRET|KEY|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL"
    r"|(?:^|_)(?:AUTH|PRIVATE|SESSION|COOKIE)(?:_|$)",
    re.IGNORECASE,
)
# A URL's password: `scheme://user:PASSWORD@host` (DATABASE_URL, PIP_INDEX_URL).
URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@]*:)([^\s@/]+)(@)")
SECRET_FILES = (
    ".env",
    ".env.*",
    "*.env",
    ".envrc",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".npmrc",
    ".pypirc",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".dockercfg",
    "credentials",
    "credentials.json",
    "*.tfvars",
    ".htpasswd",
    "secrets.y*ml",
)
# Template files that document the variables, never hold the values.
PUBLIC_FILES = (".env.example", ".env.sample", ".env.template", ".env.dist", "*.pub")


@cache
def provider_stems() -> frozenset[str]:
    """The provider part of every `PROVIDER_KEYS` name (`DATABRICKS` of `DATABRICKS_API_KEY`)."""
    return frozenset(KEY_SUFFIX.sub("", name) for name in PROVIDER_KEYS)


def is_provider_key(name: str) -> bool:
    """True for a model provider's credential variable (see the module docstring)."""
    upper = name.upper()
    if upper in PROVIDER_KEYS:
        return True
    suffix = KEY_SUFFIX.search(upper)
    return suffix is not None and upper[: suffix.start()] in provider_stems()


# The web search providers of litellm's search API (https://docs.litellm.ai/docs/search): their
# keys (`TAVILY_API_KEY`, `EXA_API_KEY`, ...) serve fixbot's research, never the check.
SEARCH_KEY_PREFIXES = (
    *("PERPLEXITY", "TAVILY", "PARALLEL", "EXA_", "BRAVE", "GOOGLE_PSE", "DATAFORSEO"),
    *("FIRECRAWL", "FASTCRW", "SEARXNG", "LINKUP", "SEARCHAPI", "SERPER", "YOU_COM"),
    *("APISERPENT", "TINYFISH", "NIMBLE"),
)
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "LOGIN")


def is_search_key(name: str) -> bool:
    """True for a web search provider's credential variable (`TAVILY_API_KEY`)."""
    upper = name.upper()
    return upper.startswith(SEARCH_KEY_PREFIXES) and any(w in upper for w in SECRET_WORDS)


def is_scrubbed(name: str) -> bool:
    """True for a variable the check and fix commands must never see."""
    upper = name.upper()
    return (
        upper in GITHUB_NAMES
        or upper.startswith(SCRUBBED_PREFIXES)
        or is_provider_key(upper)
        or is_search_key(upper)
    )


def check_environment(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without the variables the check and fix commands must never see."""
    return {name: value for name, value in env.items() if not is_scrubbed(name)}


def _usable(value: str) -> bool:
    return len(value) >= MIN_SECRET_LENGTH and not value.isdigit()


def url_passwords(text: str) -> list[str]:
    """The passwords of the URLs in `text` (`scheme://user:PASSWORD@host`), decoded too."""
    found = [m.group(2) for m in URL_PASSWORD.finditer(text)]
    return found + [unquote(p) for p in found if unquote(p) != p]


def secret_values(env: Mapping[str, str]) -> list[str]:
    """The secret values of `env`, longest first.

    The values (8 characters or more, not purely numeric) of variables named like a secret
    (`SECRET_NAME`) or scrubbed (`is_scrubbed`, except the plain `INPUT_*`/`FIXBOT_*` settings),
    and the passwords inside URL values (`DATABASE_URL=postgres://u:PASSWORD@db`).
    """
    found: set[str] = set()
    for name, value in env.items():
        if SECRET_NAME.search(name) or is_provider_key(name) or name.upper() in GITHUB_NAMES:
            found.add(value)
        found.update(url_passwords(value))
    return sorted((v for v in found if _usable(v)), key=len, reverse=True)


def is_secret_file(name: str) -> bool:
    """True for a file name that usually holds secrets (`.env`, `id_rsa`, `*.pem`, `.netrc`)."""
    lowered = name.lower()
    if any(fnmatchcase(lowered, pattern) for pattern in PUBLIC_FILES):
        return False
    return any(fnmatchcase(lowered, pattern) for pattern in SECRET_FILES)
