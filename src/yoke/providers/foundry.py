"""Claude on Microsoft (Azure AI) Foundry: the Anthropic Messages API at an Azure endpoint.

Configured as Claude Code documents it: `CLAUDE_CODE_USE_FOUNDRY=1`, then `ANTHROPIC_FOUNDRY_RESOURCE` (the
endpoint becomes `https://<resource>.services.ai.azure.com/anthropic`) or `ANTHROPIC_FOUNDRY_BASE_URL`, and
`ANTHROPIC_FOUNDRY_API_KEY`. Without a key, a Microsoft Entra ID token is used: `ANTHROPIC_AUTH_TOKEN` if
set, else one from the Azure CLI (`az account get-access-token`, fetched once, on the first request).
`CLAUDE_CODE_SKIP_FOUNDRY_AUTH=1` sends no credentials (a gateway adds them). Models are deployment names,
which by default are the model ids (`claude-sonnet-4-6`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from yoke.providers.anthropic import AnthropicProvider
from yoke.providers.base import ProviderError
from yoke.providers.transport import Transport

ENTRA_SCOPE = "https://cognitiveservices.azure.com"
AZ_TIMEOUT_S = 30


class FoundryProvider(AnthropicProvider):
    name = "foundry"
    key_vars = ("ANTHROPIC_FOUNDRY_API_KEY",)

    def __init__(self, *, skip_auth: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.skip_auth = skip_auth

    @classmethod
    def env_settings(
        cls, env: Mapping[str, str], *, base_url: str | None = None, transport: Transport | None = None
    ) -> dict[str, Any]:
        """The endpoint from ANTHROPIC_FOUNDRY_RESOURCE or _BASE_URL; CLAUDE_CODE_SKIP_FOUNDRY_AUTH."""
        settings = super().env_settings(env, base_url=base_url or foundry_base_url(env), transport=transport)
        skip = (env.get("CLAUDE_CODE_SKIP_FOUNDRY_AUTH") or "").strip().lower()
        settings["skip_auth"] = skip in ("1", "true", "yes")
        return settings

    def _headers(self) -> dict[str, str]:
        if not self.api_key and not self.auth_token and not self.skip_auth:
            self.auth_token = entra_token()
        headers = super()._headers()
        if self.api_key:
            headers["api-key"] = self.api_key  # Azure's header; x-api-key is sent as well
        return headers


def foundry_provider(env: Mapping[str, str], *, transport: Transport | None = None) -> FoundryProvider:
    return FoundryProvider.from_env(env, transport=transport)


def foundry_base_url(env: Mapping[str, str]) -> str:
    explicit = (env.get("ANTHROPIC_FOUNDRY_BASE_URL") or "").strip()
    if explicit:
        return explicit.rstrip("/")
    resource = (env.get("ANTHROPIC_FOUNDRY_RESOURCE") or "").strip()
    if not resource:
        raise ProviderError(
            "config",
            "Foundry needs its endpoint: set ANTHROPIC_FOUNDRY_RESOURCE (your Azure resource name) "
            "or ANTHROPIC_FOUNDRY_BASE_URL",
        )
    return f"https://{resource}.services.ai.azure.com/anthropic"


def entra_token() -> str:
    """A Microsoft Entra ID access token for Azure AI services, from the Azure CLI."""
    import shutil
    import subprocess

    hint = "set ANTHROPIC_FOUNDRY_API_KEY, or sign in to Azure with `az login`"
    az = shutil.which("az")
    if az is None:
        raise ProviderError(
            "authentication", f"No Foundry credentials · {hint} (the Azure CLI is not installed)"
        )
    command = [
        az,
        "account",
        "get-access-token",
        "--resource",
        ENTRA_SCOPE,
        "--query",
        "accessToken",
        "-o",
        "tsv",
    ]
    try:
        from yoke import spawn

        # the user's Azure CLI, for the user's own credentials
        done = spawn.run(command, confine=None, text=True, timeout=AZ_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProviderError("authentication", f"No Foundry credentials · {hint} ({exc})") from None
    token = done.stdout.strip()
    if done.returncode != 0 or not token:
        reason = " ".join(done.stderr.split())[:200] or f"az exited with {done.returncode}"
        raise ProviderError("authentication", f"No Foundry credentials · {hint} ({reason})")
    return token
